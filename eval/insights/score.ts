// `npm run eval:insights [-- --set dev|test] [--errors]`: runs the insights engine on every labelled
// sentence of eval/insights/<set>/<lang>.jsonl (as a review with that text and the file's
// language) and prints, per language, aspect-category micro-F1 over (sentence, topic) pairs and
// polarity accuracy over the found pairs that are labelled, beside the keyword baseline
// (baseline.ts) measured in the same run, then a per-topic table. The test set is frozen: tune on
// dev only (--errors lists the dev misses, and refuses the test set).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createExtractor } from '../../src/extraction/index.ts';
import type { LexiconFile } from '../../src/extraction/lexicon.ts';
import { CANONICAL_TOPICS, type CanonicalTopic, ENGINE_LANGUAGES, type Extraction, type Polarity } from '../../src/extraction/types.ts';
import { createBaseline } from './baseline.ts';

const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'test' },
    errors: { type: 'boolean', default: false },
    opinionless: { type: 'string', default: 'neutral' },
  },
});
if (values.set !== 'dev' && values.set !== 'test') throw new Error('--set must be dev or test');
if (values.errors && values.set !== 'dev') throw new Error('--errors lists misses of the dev set only: the test set is not read to tune');
const ROOT = fileURLToPath(new URL(`./${values.set}/`, import.meta.url));
const LEXICONS = fileURLToPath(new URL('../../src/extraction/lexicons/', import.meta.url));

interface Row {
  id: string;
  text: string;
  labels: { topic: CanonicalTopic; polarity: Polarity }[];
}

interface Tally {
  tp: number;
  fp: number;
  fn: number;
  polarityRight: number;
  /** Found pairs whose labelled polarity was compared. */
  polarityPairs: number;
}

const tally = (): Tally => ({ tp: 0, fp: 0, fn: 0, polarityRight: 0, polarityPairs: 0 });

function add(t: Tally, gold: Map<CanonicalTopic, Polarity>, found: Map<CanonicalTopic, Polarity>): void {
  for (const [topic, polarity] of found) {
    const labelled = gold.get(topic);
    if (labelled === undefined) {
      t.fp++;
      continue;
    }
    t.tp++;
    t.polarityPairs++;
    if (labelled === polarity) t.polarityRight++;
  }
  for (const topic of gold.keys()) if (!found.has(topic)) t.fn++;
}

function figures(t: Tally): { p: number; r: number; f1: number; polarity: number } {
  const p = t.tp / Math.max(1, t.tp + t.fp);
  const r = t.tp / Math.max(1, t.tp + t.fn);
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r), polarity: t.polarityRight / Math.max(1, t.polarityPairs) };
}

/** A sentence's topics and their polarity from the engine: for a topic found in several stretches, the most confident one. */
function byTopic(extraction: Extraction): Map<CanonicalTopic, Polarity> {
  const best = new Map<CanonicalTopic, { polarity: Polarity; confidence: number }>();
  for (const m of extraction.mentions) {
    const seen = best.get(m.topic);
    if (!seen || m.confidence >= seen.confidence) best.set(m.topic, { polarity: m.sentiment, confidence: m.confidence });
  }
  return new Map([...best].map(([topic, v]) => [topic, v.polarity]));
}

const extractor = createExtractor({ opinionless: values.opinionless === 'drop' ? 'drop' : 'neutral' });
const pct = (x: number) => (x * 100).toFixed(1).padStart(5);
const perTopic = new Map<CanonicalTopic, Tally>(CANONICAL_TOPICS.map((t) => [t, tally()]));
const rows: string[] = [];
const errors: string[] = [];
const all = { engine: tally(), baseline: tally() };

for (const language of ENGINE_LANGUAGES) {
  const path = `${ROOT}${language}.jsonl`;
  if (!existsSync(path)) {
    rows.push(`${language}  (no ${values.set} file)`);
    continue;
  }
  const sentences: Row[] = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const baseline = createBaseline(JSON.parse(readFileSync(`${LEXICONS}${language}.json`, 'utf8')) as LexiconFile);
  const engine = tally();
  const base = tally();
  for (const row of sentences) {
    const gold = new Map(row.labels.map((l) => [l.topic, l.polarity]));
    const found = byTopic(extractor.extract({ title: null, text: row.text, language }));
    add(engine, gold, found);
    add(all.engine, gold, found);
    add(base, gold, baseline(row.text));
    add(all.baseline, gold, baseline(row.text));
    for (const topic of new Set([...gold.keys(), ...found.keys()])) {
      add(perTopic.get(topic)!, new Map(gold.has(topic) ? [[topic, gold.get(topic)!]] : []), new Map(found.has(topic) ? [[topic, found.get(topic)!]] : []));
    }
    if (values.errors) {
      const show = (m: Map<CanonicalTopic, Polarity>) => [...m].map(([t, p]) => `${t}:${p}`).sort().join(', ');
      if (show(gold) !== show(found)) errors.push(`${row.id}  ${row.text}\n    gold:  ${show(gold)}\n    found: ${show(found)}`);
    }
  }
  const e = figures(engine);
  const b = figures(base);
  rows.push(`${language}  ${String(sentences.length).padStart(5)}  ${pct(e.f1)}  ${pct(e.p)}  ${pct(e.r)}  ${pct(e.polarity)}   ${pct(b.f1)}  ${pct(b.polarity)}   ${(e.f1 / Math.max(b.f1, 1e-9)).toFixed(2)}×  ${(e.polarity / Math.max(b.polarity, 1e-9)).toFixed(2)}×`);
}

if (errors.length > 0) console.log(`${errors.join('\n')}\n`);
console.log(`Insights engine on the ${values.set} set (engine: micro-F1 over (sentence, topic), P, R, polarity accuracy over found labelled pairs; baseline: keyword lists, no negation or clauses)`);
console.log('lang  sents     F1      P      R    pol   base-F1  base-pol   F1 ratio  pol ratio');
for (const row of rows) console.log(row);
const e = figures(all.engine);
const b = figures(all.baseline);
console.log(`all          ${pct(e.f1)}  ${pct(e.p)}  ${pct(e.r)}  ${pct(e.polarity)}   ${pct(b.f1)}  ${pct(b.polarity)}   ${(e.f1 / b.f1).toFixed(2)}×  ${(e.polarity / b.polarity).toFixed(2)}×`);
console.log('\ntopic             pairs      P      R     F1    pol');
for (const [topic, t] of perTopic) {
  const f = figures(t);
  console.log(`${topic.padEnd(16)}  ${String(t.tp + t.fn).padStart(5)}  ${pct(f.p)}  ${pct(f.r)}  ${pct(f.f1)}  ${pct(f.polarity)}`);
}
