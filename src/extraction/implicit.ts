// Implicit opinions: a sentence that names a topic but holds no word of any polarity list ("we had
// to ask three times for towels", "in two minutes we had the keys", "il parcheggio costa 18 euro").
// A naive Bayes model over the sentence's words, trained on the development set's labels
// (`npm run train:insights` writes implicit.json), tells praise from blame where it is sure; the
// engine asks it only about such opinionless mentions and where a topic's opinions cancel out. Its
// weights are data, like the lexicons.
import { elides } from './lexicon.ts';
import { tokenize } from './tokens.ts';
import type { EngineLanguage, Polarity } from './types.ts';

/**
 * One language's model, three classes (positive, negative, neutral) against negative: log-ratios of
 * the priors, and per word the log-ratios of its likelihoods. Words are tuples, not an object's keys:
 * JSON imports turn keys into named exports, and words such as "new" or "class" are reserved.
 */
export interface ImplicitModel {
  /** log P(positive)/P(negative), log P(neutral)/P(negative). */
  prior: [number, number];
  /** The log-ratios of a word the training sentences never held. */
  unseen: [number, number];
  words: [word: string, positive: number, neutral: number][];
}

export interface ImplicitFile {
  about: string;
  /** Posterior probability of a polarity at or above which the model is believed. */
  threshold: number;
  /** Words seen fewer times than this in training were left out (they count as unseen). */
  minCount: number;
  /** How many examples a neutral label counted for in training. */
  neutralWeight: number;
  languages: Record<EngineLanguage, ImplicitModel>;
}

/** A labelled training sentence: its text and the polarity of each topic it is about. */
export interface LabelledSentence {
  text: string;
  labels: { polarity: Polarity }[];
}

/** The distinct words of a text as the engine reads them. */
export function wordsOf(text: string, language: EngineLanguage): string[] {
  return [...new Set(tokenize(text, elides(language)).map((t) => t.norm))];
}

const CLASS: Record<Polarity, 0 | 1 | 2> = { positive: 0, negative: 1, neutral: 2 };

/**
 * Multinomial naive Bayes over distinct words, add-one smoothing. Each label of a sentence is one
 * example (a sentence praising two topics counts twice); a neutral one counts `neutralWeight` times,
 * so that plain statements ("we had breakfast in the room"), rare among the labels, hold their own
 * against praise and blame.
 */
export function trainImplicit(sentences: readonly LabelledSentence[], language: EngineLanguage, minCount: number, neutralWeight = 1): ImplicitModel {
  const counts = new Map<string, [number, number, number]>();
  const examples: [number, number, number] = [0, 0, 0];
  const tokens: [number, number, number] = [0, 0, 0];
  for (const sentence of sentences) {
    const words = wordsOf(sentence.text, language);
    for (const label of sentence.labels) {
      const c = CLASS[label.polarity];
      const weight = c === 2 ? neutralWeight : 1;
      examples[c] += weight;
      tokens[c] += words.length * weight;
      for (const w of words) {
        const seen = counts.get(w) ?? [0, 0, 0];
        seen[c] += weight;
        counts.set(w, seen);
      }
    }
  }
  const vocabulary = counts.size;
  const likelihood = (n: number, c: 0 | 1 | 2) => Math.log((n + 1) / (tokens[c] + vocabulary));
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const ratios = (n: [number, number, number]): [number, number] =>
    [round(likelihood(n[0], 0) - likelihood(n[1], 1)), round(likelihood(n[2], 2) - likelihood(n[1], 1))];
  const words: [string, number, number][] = [];
  for (const [w, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (n[0] + n[1] + n[2] >= minCount) words.push([w, ...ratios(n)]);
  }
  const prior = (c: number) => Math.log(c + 1);
  return { prior: [round(prior(examples[0]) - prior(examples[1])), round(prior(examples[2]) - prior(examples[1]))], unseen: ratios([0, 0, 0]), words };
}

/** A model ready to read: its words in a map. */
export interface LoadedModel {
  prior: [number, number];
  unseen: [number, number];
  words: Map<string, [number, number]>;
}

export const loadModel = (model: ImplicitModel): LoadedModel =>
  ({ prior: model.prior, unseen: model.unseen, words: new Map(model.words.map(([w, p, n]) => [w, [p, n]])) });

/** P(positive), P(negative), P(neutral) of a sentence's distinct words under a model. */
export function probabilities(model: LoadedModel, words: Iterable<string>): Record<Polarity, number> {
  let positive = model.prior[0];
  let neutral = model.prior[1];
  for (const w of words) {
    const [p, n] = model.words.get(w) ?? model.unseen;
    positive += p;
    neutral += n;
  }
  const top = Math.max(positive, 0, neutral);
  const [ep, en, eu] = [Math.exp(positive - top), Math.exp(-top), Math.exp(neutral - top)];
  const z = ep + en + eu;
  return { positive: ep / z, negative: en / z, neutral: eu / z };
}

/** The praise or blame the model is sure of (probability at least `threshold`), else null (unsure, or a plain statement). */
export function implicitPolarity(model: LoadedModel, words: Iterable<string>, threshold: number): Polarity | null {
  const p = probabilities(model, words);
  return p.positive >= threshold ? 'positive' : p.negative >= threshold ? 'negative' : null;
}

/** The models of every language, ready to read, and the threshold they are believed at. */
export interface ImplicitReader {
  threshold: number;
  models: Map<EngineLanguage, LoadedModel>;
}

export const implicitReader = (file: ImplicitFile): ImplicitReader => ({
  threshold: file.threshold,
  models: new Map((Object.entries(file.languages) as [EngineLanguage, ImplicitModel][]).map(([language, model]) => [language, loadModel(model)])),
});
