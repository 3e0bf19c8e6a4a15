// The baseline the engine is measured against: a plain keyword-list extractor. Every topic cue of
// the engine's own lexicon that appears as a word fires its topic (no multi-word cues, no
// compounds, no masking phrases), and every topic of the sentence takes the sign of the sentence's
// polar-word count from the same lexicon's single words (no negation, no clause split, no
// intensity); neutral when the count is zero. Sharing the word lists keeps the comparison about
// the method, not the vocabulary.
import type { LexiconFile } from '../../src/extraction/lexicon.ts';
import type { CanonicalTopic, Polarity } from '../../src/extraction/types.ts';

interface Lists {
  exact: Map<string, CanonicalTopic>;
  prefixes: [string, CanonicalTopic][];
  polar: Map<string, number>;
  polarPrefixes: [string, number][];
}

const WORD = /[\p{L}\p{N}]+/gu;

export function createBaseline(file: LexiconFile): (text: string) => Map<CanonicalTopic, Polarity> {
  const lists: Lists = { exact: new Map(), prefixes: [], polar: new Map(), polarPrefixes: [] };
  for (const [topic, cues] of Object.entries(file.topics) as [CanonicalTopic, string[]][]) {
    for (const cue of cues) {
      if (cue.includes(' ') || cue.includes("'")) continue;
      if (cue.endsWith('*')) lists.prefixes.push([cue.slice(0, -1), topic]);
      else lists.exact.set(cue, topic);
    }
  }
  for (const [words, sign] of [[file.positive, 1], [file.negative, -1]] as const) {
    for (const w of words) {
      if (w.includes(' ') || w.includes("'")) continue;
      if (w.endsWith('*')) lists.polarPrefixes.push([w.slice(0, -1), sign]);
      else lists.polar.set(w, sign);
    }
  }
  return (text) => {
    const topics = new Set<CanonicalTopic>();
    let score = 0;
    for (const [word] of text.toLowerCase().matchAll(WORD)) {
      const topic = lists.exact.get(word) ?? lists.prefixes.find(([p]) => word.startsWith(p))?.[1];
      if (topic) topics.add(topic);
      score += lists.polar.get(word) ?? lists.polarPrefixes.find(([p]) => word.startsWith(p))?.[1] ?? 0;
    }
    const polarity: Polarity = score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
    return new Map([...topics].map((t) => [t, polarity]));
  };
}
