// NDJSON files for `repute import` tests: lines from objects (or raw text), written to a temporary file,
// and a file of every record kind as an export would interleave them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tree } from '../support/factories.ts';

export const ndjson = (lines: Array<object | string>): string =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

export function tempFile(content: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'repute-import-'));
  const path = join(dir, 'import.ndjson');
  writeFileSync(path, content);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A file of every kind, interleaved as an export would be: reviews, with mentions, responses, recommendations among them. */
export function mixedFile(tree: Tree, reviews: number): string {
  const a = tree.accountId;
  const lines: object[] = [];
  for (let k = 0; k < 4; k++) lines.push({ type: 'topic', account_id: a, ref: `t${k}`, name: `Topic ${k}`, language: 'en' });
  lines.push({ type: 'topic', account_id: a, ref: 'child', name: 'Child topic', parent_label_ref: 't0' });
  lines.push({ type: 'survey', account_id: a, ref: 's', node_id: tree.root, name: 'Stay', status: 'published', published_at: '2026-01-01T00:00:00Z',
    definition: { pages: [{ id: 'p1', questions: [{ id: 'nps', type: 'nps', text: { en: 'Recommend us?' } }] }] } });
  for (let i = 0; i < reviews; i++) {
    const day = `2026-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, '0')}`;
    lines.push({ type: 'review', account_id: a, node_id: tree.properties[i % 3], platform: i % 2 ? 'google' : 'booking', external_id: `k-${i}`,
      reviewed_at: `${day}T10:00:00Z`, rating: 1 + (i % 5), text: `Review ${i}`, recommend: i % 3 === 0 });
    if (i % 10 === 9) {
      lines.push({ type: 'mention', account_id: a, review: { platform: i % 2 ? 'google' : 'booking', external_id: `k-${i}` },
        canonical_label_ref: `t${i % 4}`, text: `Review ${i}`, source_field: 'text', sentiment: 'positive', confidence: 0.5 });
    }
    if (i % 25 === 0) {
      lines.push({ type: 'response', account_id: a, survey_ref: 's', node_id: tree.properties[i % 3], channel: 'email', status: 'completed',
        overall_score: i % 11, started_at: `${day}T08:00:00Z`, completed_at: `${day}T08:05:00Z`,
        answers: [{ question_id: 'nps', question_type: 'nps', value: i % 11, numeric_value: i % 11, answered_at: `${day}T08:01:00Z` }] });
    }
    if (i % 100 === 50) {
      lines.push({ type: 'recommendation', account_id: a, external_id: `rec-${i}`, title: `Idea ${i}`, body: 'Do better.', priority: 'low', canonical_label_ref: 't1' });
    }
  }
  return ndjson(lines);
}
