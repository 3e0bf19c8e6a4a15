// The model of implicit opinions (src/extraction/implicit.ts): how it is trained, when the engine asks
// it, and that the shipped weights are what the development set trains.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ImplicitFile, implicitPolarity, loadModel, trainImplicit } from '../../src/extraction/implicit.ts';
import { createExtractor } from '../../src/extraction/index.ts';
import { ENGINE_LANGUAGES } from '../../src/extraction/types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const sentences = [
  { text: 'We had to ask twice for towels.', labels: [{ polarity: 'negative' as const }] },
  { text: 'We had to wait for the key.', labels: [{ polarity: 'negative' as const }] },
  { text: 'In two minutes we had the key.', labels: [{ polarity: 'positive' as const }] },
  { text: 'Breakfast is served in the garden.', labels: [{ polarity: 'neutral' as const }] },
];

test('training weighs the words of praise, blame and plain statements against each other', () => {
  const model = loadModel(trainImplicit(sentences, 'en', 1, 1));
  assert.ok(model.words.get('ask')![0] < 0 && model.words.get('minutes')![0] > 0, 'positive against negative');
  assert.ok(model.words.get('garden')![1] > 0, 'neutral against negative');
  assert.equal(implicitPolarity(model, ['had', 'to', 'ask'], 0.7), 'negative');
  assert.equal(implicitPolarity(model, ['in', 'two', 'minutes'], 0.7), 'positive');
  // A plain statement, or words it cannot tell apart: no verdict.
  assert.equal(implicitPolarity(model, ['served', 'in', 'the', 'garden'], 0.7), null);
  assert.equal(implicitPolarity(model, ['key'], 0.7), null);
  assert.ok(!loadModel(trainImplicit(sentences, 'en', 2, 1)).words.has('towels'), 'words seen fewer than minCount times are left out');
});

test('a neutral label counts as many examples as its weight', () => {
  const plain = { text: 'The pool is open in summer.', labels: [{ polarity: 'neutral' as const }] };
  const praise = { text: 'The pool is lovely.', labels: [{ polarity: 'positive' as const }] };
  const blame = { text: 'The pool is closed.', labels: [{ polarity: 'negative' as const }] };
  const words = ['the', 'pool', 'is'];
  assert.equal(implicitPolarity(loadModel(trainImplicit([plain, praise, praise, blame], 'en', 1, 1)), words, 0.5), 'positive');
  assert.equal(implicitPolarity(loadModel(trainImplicit([plain, praise, praise, blame], 'en', 1, 8)), words, 0.5), null);
});

test('the engine asks the model about a topic named with no opinion word, and about nothing else', () => {
  // A hand-made model: "twice" is blame, and nothing else says anything.
  const model = { prior: [0, 0] as [number, number], unseen: [0, 0] as [number, number], words: [['twice', -5, -5]] as [string, number, number][] };
  const languages = Object.fromEntries(ENGINE_LANGUAGES.map((l) => [l, model]));
  const implicit: ImplicitFile = { about: 'test', threshold: 0.7, minCount: 1, neutralWeight: 1, languages: languages as ImplicitFile['languages'] };
  const withModel = createExtractor({ implicit });
  const leansOnly = createExtractor({ implicit: null });
  const sentiments = (extractor: typeof leansOnly, text: string) => extractor.extract({ title: null, text, language: 'en' }).mentions.map((m) => m.sentiment);
  assert.deepEqual(sentiments(leansOnly, 'We asked twice at breakfast.'), ['neutral']);
  assert.deepEqual(sentiments(withModel, 'We asked twice at breakfast.'), ['negative']);
  // Unsure (no word it knows): the topic's lean or neutral, as without it.
  assert.deepEqual(sentiments(withModel, 'We asked at breakfast.'), ['neutral']);
  // An opinion word decides where there is one.
  assert.deepEqual(sentiments(withModel, 'We asked twice, and breakfast was delicious.'), ['positive']);
});

test('src/extraction/implicit.json is what the development set trains (npm run train:insights)', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'eval/insights/train.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
  assert.match(out, /up to date/);
});
