// The labelled evaluation data of the insights engine (eval/insights/, see its GUIDE.md) is well
// formed: one JSON object per line, unique ids, topics among CANONICAL_TOPICS, valid polarity,
// at least 300 frozen test sentences per language, and no sentence shared between dev and test
// (a dev sentence in the test set would let tuning leak into the score).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CANONICAL_TOPICS, ENGINE_LANGUAGES } from '../../src/extraction/types.js';

const ROOT = fileURLToPath(new URL('../../eval/insights/', import.meta.url));
const POLARITIES = new Set(['positive', 'negative', 'neutral']);
const TOPICS = new Set<string>(CANONICAL_TOPICS);

interface Row {
  id: string;
  text: string;
  labels: { topic: string; polarity: string }[];
}

/** Parses one file, asserting the shape of every line; returns its rows. */
function load(split: 'test' | 'dev', lang: string): Row[] {
  const file = `${ROOT}${split}/${lang}.jsonl`;
  assert.ok(existsSync(file), `${split}/${lang}.jsonl exists`);
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.equal(lines.at(-1), '', `${split}/${lang}.jsonl ends with a newline`);
  return lines.slice(0, -1).map((line, i) => {
    const where = `${split}/${lang}.jsonl line ${i + 1}`;
    let row: any;
    assert.doesNotThrow(() => {
      row = JSON.parse(line);
    }, `${where} is valid JSON`);
    assert.deepEqual(Object.keys(row).sort(), ['id', 'labels', 'text'], `${where} has id, text, labels only`);
    assert.match(row.id, new RegExp(`^${lang}-${split === 'test' ? 't' : 'd'}-\\d{4}$`), `${where} id`);
    assert.equal(typeof row.text, 'string', `${where} text is a string`);
    assert.ok(row.text.trim().length > 0 && row.text === row.text.trim(), `${where} text is trimmed and non-empty`);
    assert.ok(Array.isArray(row.labels), `${where} labels is an array`);
    const seen = new Set<string>();
    for (const label of row.labels) {
      assert.deepEqual(Object.keys(label).sort(), ['polarity', 'topic'], `${where} label has topic, polarity only`);
      assert.ok(TOPICS.has(label.topic), `${where} topic "${label.topic}" is canonical`);
      assert.ok(POLARITIES.has(label.polarity), `${where} polarity "${label.polarity}" is valid`);
      assert.ok(!seen.has(label.topic), `${where} labels topic ${label.topic} once`);
      seen.add(label.topic);
    }
    return row as Row;
  });
}

const allIds = new Set<string>();

for (const lang of ENGINE_LANGUAGES) {
  test(`eval set ${lang}: well formed, ≥300 test sentences, dev and test disjoint`, () => {
    const testRows = load('test', lang);
    const devRows = load('dev', lang);
    assert.ok(testRows.length >= 300, `test/${lang}.jsonl has ${testRows.length} sentences, needs ≥300`);
    assert.ok(devRows.length >= 100, `dev/${lang}.jsonl has ${devRows.length} sentences, needs ≥100`);
    for (const row of [...testRows, ...devRows]) {
      assert.ok(!allIds.has(row.id), `id ${row.id} is unique`);
      allIds.add(row.id);
    }
    const normal = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
    const testTexts = new Set<string>();
    for (const row of testRows) {
      assert.ok(!testTexts.has(normal(row.text)), `test/${lang} sentence appears once: ${row.text}`);
      testTexts.add(normal(row.text));
    }
    const shared = devRows.filter((row) => testTexts.has(normal(row.text))).map((row) => row.id);
    assert.deepEqual(shared, [], `dev/${lang} shares no sentence with test/${lang}`);
    // Every topic is represented in the test set, else its per-topic score means nothing.
    const topics = new Set(testRows.flatMap((row) => row.labels.map((l) => l.topic)));
    assert.deepEqual([...CANONICAL_TOPICS].filter((t) => !topics.has(t)), [], `every topic occurs in test/${lang}`);
  });
}
