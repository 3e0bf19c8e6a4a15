// `npm run train:insights [-- --check]`: trains the model of implicit opinions
// (src/extraction/implicit.ts) on the development set and writes src/extraction/implicit.json.
// Before writing, it measures the model by 5-fold cross-validation on the development set (folds by
// line number, so the figures repeat): how many polarities the engine gets right with its leans alone
// and with the model, on the found labelled pairs that have no opinion word in their sentence and on
// all found labelled pairs. The test set is never read. --check writes nothing and fails when the file is not what
// training makes of the current development set (test/extraction/implicit.test.ts runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ImplicitFile, type LabelledSentence, trainImplicit } from '../../src/extraction/implicit.ts';
import { createExtractor } from '../../src/extraction/index.ts';
import { ENGINE_LANGUAGES, type EngineLanguage, type Polarity } from '../../src/extraction/types.ts';

/**
 * Chosen by the cross-validation below (2026-11-26, 2,662 dev sentences; right polarities of the five
 * languages' 288 opinionless pairs: leans only 168). Threshold, the posterior at or above which the
 * model is believed: 0.6: 183, 0.7: 190, 0.8: 178 (neutral weight 8). Neutral weight, how many
 * examples a neutral label counts for: neutral labels are rare (about one in thirty) and plain
 * statements ("we had breakfast in the room") otherwise read as praise or blame; 1: 182, 2: 183, 4:
 * 185, 8: 190, 16: 189, 24: 191 (threshold 0.7). Minimum count, below which a word is left out (the
 * file stays small): 1 gained one pair at 0.7 when measured with two classes, 3 lost six. Checked
 * again later (all found pairs, 3,114 of them): neutral weight 8 at 0.7 still the best of
 * 4/8/16 × 0.65/0.7/0.75.
 */
const THRESHOLD = 0.7;
const NEUTRAL_WEIGHT = 8;
const MIN_COUNT = 2;
/** The engine's confidence for a mention with no opinion in its sentence (engine.ts). */
const OPINIONLESS_CONFIDENCE = 0.3;

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const DEV = fileURLToPath(new URL('./dev/', import.meta.url));
const OUT = fileURLToPath(new URL('../../src/extraction/implicit.json', import.meta.url));

interface Row extends LabelledSentence {
  labels: { topic: string; polarity: Polarity }[];
}

const devSentences = (language: EngineLanguage): Row[] =>
  readFileSync(`${DEV}${language}.jsonl`, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

function train(languages: Partial<Record<EngineLanguage, Row[]>>): ImplicitFile {
  const models = Object.fromEntries(ENGINE_LANGUAGES.map((language) => [language, trainImplicit(languages[language] ?? [], language, MIN_COUNT, NEUTRAL_WEIGHT)]));
  return {
    about: 'Naive Bayes over the distinct words of a sentence, positive, negative and neutral (neutral labels weighted 8), trained on eval/insights/dev by eval/insights/train.ts; asked by the engine only about a topic named in a sentence with no opinion word, and believed at the threshold. Do not edit: run npm run train:insights.',
    threshold: THRESHOLD,
    minCount: MIN_COUNT,
    neutralWeight: NEUTRAL_WEIGHT,
    languages: models as ImplicitFile['languages'],
  };
}

/** Right polarities on the held-out folds' found labelled pairs, all and those with no opinion word in their sentence: leans only, and model first. */
function crossValidate(language: EngineLanguage, rows: Row[]): { pairs: number; leans: number; model: number; allPairs: number; allLeans: number; allModel: number } {
  const tally = { pairs: 0, leans: 0, model: 0, allPairs: 0, allLeans: 0, allModel: 0 };
  const leansOnly = createExtractor({ implicit: null });
  for (let fold = 0; fold < 5; fold++) {
    const withModel = createExtractor({ implicit: train({ [language]: rows.filter((_, i) => i % 5 !== fold) }) });
    for (const row of rows.filter((_, i) => i % 5 === fold)) {
      const read = (extractor: typeof leansOnly) => {
        const best = new Map<string, { sentiment: Polarity; confidence: number }>();
        for (const m of extractor.extract({ title: null, text: row.text, language }).mentions) {
          const seen = best.get(m.topic);
          if (!seen || m.confidence >= seen.confidence) best.set(m.topic, m);
        }
        return best;
      };
      const before = read(leansOnly);
      const after = read(withModel);
      for (const label of row.labels) {
        const found = before.get(label.topic);
        const foundAfter = after.get(label.topic);
        if (found) {
          tally.allPairs++;
          if (found.sentiment === label.polarity) tally.allLeans++;
        }
        if (foundAfter?.sentiment === label.polarity) tally.allModel++;
        if (!found || found.confidence > OPINIONLESS_CONFIDENCE) continue;
        tally.pairs++;
        if (found.sentiment === label.polarity) tally.leans++;
        if (foundAfter?.sentiment === label.polarity) tally.model++;
      }
    }
  }
  return tally;
}

const all = Object.fromEntries(ENGINE_LANGUAGES.map((language) => [language, devSentences(language)])) as Record<EngineLanguage, Row[]>;
const file = `${JSON.stringify(train(all))}\n`;
if (values.check) {
  if (readFileSync(OUT, 'utf8') !== file) {
    console.error('src/extraction/implicit.json is not what the development set trains: run npm run train:insights');
    process.exit(1);
  }
  console.log('src/extraction/implicit.json is up to date');
} else {
  console.log('5-fold cross-validation on the development set, polarities right: found labelled pairs with no opinion word in their sentence, and all found labelled pairs');
  console.log('lang  opinionless  leans only  model first    all found  leans only  model first');
  for (const language of ENGINE_LANGUAGES) {
    const t = crossValidate(language, all[language]);
    const n = (x: number, w: number) => String(x).padStart(w);
    console.log(`${language}    ${n(t.pairs, 11)}  ${n(t.leans, 10)}  ${n(t.model, 11)}    ${n(t.allPairs, 9)}  ${n(t.allLeans, 10)}  ${n(t.allModel, 11)}`);
  }
  // Unchanged weights are not written again: a newer source file makes the CLI rebuild dist/.
  const changed = readFileSync(OUT, 'utf8') !== file;
  if (changed) writeFileSync(OUT, file);
  console.log(`${changed ? 'wrote' : 'unchanged:'} ${OUT.slice(OUT.indexOf('src/'))} (threshold ${THRESHOLD}, neutral weight ${NEUTRAL_WEIGHT}, words seen ${MIN_COUNT}+ times)`);
}
