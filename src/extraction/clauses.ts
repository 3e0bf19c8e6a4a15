// A field's words → lexicon hits (the longest match; else the general polarity list of backstop.ts;
// Spanish and Italian superlatives read as the word they intensify; scare quotes read as irony) →
// clauses (punctuation, contrast, concessive and exception words; a clause without a topic joins its
// neighbour). engine.ts reads the opinions of these clauses.
import { type CompiledLexicon, firstWordMatches, type Meaning, NO_MEANING, type Phrase, wordMatches } from './lexicon.ts';
import type { Token } from './tokens.ts';

/** A phrase found in the text: what it means, and where. */
export interface Hit extends Meaning {
  /** First and last token index (inclusive). */
  first: number;
  last: number;
  /** How much of the text it matched (characters of its first word, then the phrase's length): the longer match wins. */
  chars: number;
}

/** The meaning of a phrase, as a hit carries it (a new object: merging adds to it). */
const meaningOf = (p: Phrase): Meaning => ({
  topic: p.topic, polarity: p.polarity, role: p.role, weak: p.weak, problem: p.problem, concessive: p.concessive,
  exception: p.exception, negatorLed: p.negatorLed, backward: p.backward, other: p.other, exclamation: p.exclamation, cheap: p.cheap, postponed: p.postponed,
});

export interface Clause {
  first: number;
  last: number;
  hits: Hit[];
  /** Linked to the previous clause by a contrast word (a new view, not a continuation). */
  contrast: boolean;
  /** Opened by a concessive word ("although", "anche se"): a lesser view, not the guest's last word. */
  concessive: boolean;
  /** Opened by an exception word ("apart from", "tranne"): what it names is the exception to the verdict beside it. */
  exception: boolean;
  /** Starts a sentence. */
  sentence: boolean;
  /** Starts the sentence after a question ("La spa? Una delusione."). */
  answer: boolean;
  /** First token of the stretch: after the contrast word that opens the clause, if any. */
  lead: number;
}

/** Finds the longest phrase starting at token i, merging what phrases of that same length mean. */
function matchAt(lexicon: CompiledLexicon, tokens: Token[], i: number): Hit | null {
  let best: Hit | null = null;
  let ignored = false;
  let bestChars = 0;
  let bestInside = false;
  let bestNeutral = false;
  const token = tokens[i]!;
  firstWordMatches(lexicon, token.norm, (phrase: Phrase, chars: number, inside: boolean) => {
    // Inside a compound only a topic names something: an opinion word there is chance ("weich" in "ausweichen").
    if (inside && phrase.topic === null) return;
    const last = i + phrase.rest.length;
    if (last >= tokens.length) return;
    for (let k = 0; k < phrase.rest.length; k++) {
      const t = tokens[i + 1 + k]!;
      // A phrase does not run across a sentence break.
      if (t.breakBefore === 2 || !wordMatches(phrase.rest[k]!, t.norm)) return;
    }
    // More of the first word matched wins ("badezimmer" over the "zimmer" inside it), then the longer phrase.
    const span = chars * 64 + phrase.weight;
    // Inside a compound an equal match further right wins: the head comes last ("Zimmerpreise" is about prices).
    if (best === null || last > best.last || (last === best.last && (span > best.chars || (inside && span === best.chars)))) {
      best = { first: i, last, chars: span, ...meaningOf(phrase) };
      bestChars = chars;
      bestInside = inside;
      bestNeutral = phrase.neutral;
      ignored = phrase.ignore;
    } else if (last === best.last && (chars === bestChars || (!inside && !bestInside))) {
      // The same words matched by another pattern from the word's start: adds what the first lacks
      // ("pulit*" topic + "pulito" verb). A match inside a compound adds nothing ("echt" in "schlecht").
      if (best.topic === null && phrase.topic !== null) best.topic = phrase.topic;
      best.weak ||= phrase.weak;
      best.other ||= phrase.other;
      best.problem ||= phrase.problem;
      best.cheap ||= phrase.cheap;
      if (best.polarity === 0 && !bestNeutral) best.polarity = phrase.polarity;
      best.role ??= phrase.role;
      ignored ||= phrase.ignore;
    }
  });
  if (best === null) {
    const base = superlativeBase(lexicon.language, token.norm);
    if (base === null) return diminutiveAt(lexicon, token, i) ?? backstopAt(lexicon, token.norm, i);
    // "carísimo", "sporchissima": read as the word they intensify, turned up.
    for (const ending of ['o', 'a', 'e', 'io']) {
      const hit = matchAt(lexicon, [{ ...token, norm: base + ending }], 0);
      if (hit && (hit.polarity !== 0 || hit.topic !== null)) return { ...hit, first: i, last: i, polarity: hit.polarity * 1.5 };
    }
    return backstopAt(lexicon, token.norm, i);
  }
  if (ignored) {
    // A masking phrase hides the cues inside it but keeps an opinion of its own ("room for
    // improvement" is negative, and not about the room).
    const masked = best as Hit;
    return plainHit(masked.first, masked.last, masked.polarity, masked.chars);
  }
  return best;
}

/**
 * A Spanish diminutive ("camita", "piscinita", "cuartito", "limpito") read as the word it shrinks,
 * at the same strength: guests use them for the hotel's things ("una piscinita muy coqueta") and a
 * lexicon cannot list every one. Only a word the lexicon knows under its base counts.
 */
function diminutiveAt(lexicon: CompiledLexicon, token: Token, i: number): Hit | null {
  if (lexicon.language !== 'es' || token.norm.length < 6) return null;
  const match = /it[oa]s?$/.exec(token.norm);
  if (!match) return null;
  const base = token.norm.slice(0, match.index);
  const gender = token.norm[match.index + 2]!;
  for (const ending of [gender, 'i' + gender]) {
    const hit = matchAt(lexicon, [{ ...token, norm: base + ending }], 0);
    if (hit && (hit.polarity !== 0 || hit.topic !== null)) return { ...hit, first: i, last: i };
  }
  return null;
}

/** A word only the general polarity list knows: polar at its low weight, about no topic. */
function backstopAt(lexicon: CompiledLexicon, word: string, i: number): Hit | null {
  const polarity = lexicon.backstop.get(word);
  if (polarity === undefined) return null;
  return plainHit(i, i, polarity, 0);
}

/** A hit that is only an opinion (or nothing): no topic, no role. */
const plainHit = (first: number, last: number, polarity: number, chars: number): Hit =>
  ({ first, last, chars, ...NO_MEANING, polarity });
const SUPERLATIVE: Record<string, RegExp> = { es: /ísim[oa]s?$/, it: /issim[oaie]$/ };

/** The stem of a Spanish or Italian absolute superlative ("carísimas" → "car"), else null. */
function superlativeBase(language: string, word: string): string | null {
  const pattern = SUPERLATIVE[language];
  if (!pattern || word.length < 7) return null;
  const match = pattern.exec(word);
  return match ? word.slice(0, match.index) : null;
}

const OPENING_QUOTES = new Set(['"', '“', '„', '«', '‹', "'", '‘', '‚']);
const CLOSING_QUOTES = new Set(['"', '”', '“', '»', '›', "'", '’', '‘']);

/** The stretch field[start, end) stands alone in quotation marks ("a 'luxury' hotel", „kostenlos“, « gratuit »). */
function quoted(field: string, start: number, end: number): boolean {
  let before = start - 1;
  while (before >= 0 && field[before] === ' ') before--;
  let after = end;
  while (after < field.length && field[after] === ' ') after++;
  if (before < 0 || after >= field.length || !OPENING_QUOTES.has(field[before]!) || !CLOSING_QUOTES.has(field[after]!)) return false;
  // A quote mark glued to a letter is an apostrophe or an elision ("l'hôtel", "guests'").
  const isLetter = (c: string | undefined) => c !== undefined && /\p{L}/u.test(c);
  return !isLetter(field[before - 1]) && !isLetter(field[after + 1]);
}

/**
 * Scare quotes are irony: a quoted word of praise means its opposite ("the 'free' parking", „Luxus“),
 * and a quoted thing does not deserve its name (the "spa", la « vue mer »). Praise in one word only:
 * a quoted phrase of praise is more often what someone said ("she said 'no problem' and fixed it").
 */
function scareQuoted(hit: Hit, field: string, tokens: Token[]): Hit {
  const praise = hit.polarity > 0;
  if (hit.role !== null || (praise ? hit.first !== hit.last : hit.topic === null || hit.polarity < 0)) return hit;
  if (!quoted(field, tokens[hit.first]!.start, tokens[hit.last]!.end)) return hit;
  return { ...hit, polarity: praise ? -hit.polarity : -1, problem: false };
}

export function clausesOf(lexicon: CompiledLexicon, tokens: Token[], field: string): Clause[] {
  const clauses: Clause[] = [];
  let current: Clause | null = null;
  let i = 0;
  while (i < tokens.length) {
    const found = matchAt(lexicon, tokens, i);
    const hit = found && scareQuoted(found, field, tokens);
    const brk = tokens[i]!.breakBefore;
    const contrast = hit?.role === 'contrast';
    if (contrast && hit.postponed && brk === 0 && current !== null && postponedContrast(current, tokens, i)) {
      // "bagno invece piccolo", "ottimo invece il ristorante": the contrast word comes after the first
      // words of its clause; the new view starts at the comma before it.
      current.contrast = true;
      current.concessive = hit.concessive;
      current.exception = hit.exception;
    } else if (current === null || brk > 0 || contrast) {
      current = { first: i, last: i, hits: [], contrast: contrast && brk < 2, concessive: contrast && hit.concessive, exception: contrast && hit.exception, sentence: brk === 2, answer: tokens[i]!.question === true, lead: contrast && hit.last + 1 < tokens.length ? hit.last + 1 : i };
      clauses.push(current);
    }
    if (hit) {
      if (hit.topic !== null || hit.polarity !== 0 || hit.other || hit.cheap || (hit.role !== null && hit.role !== 'contrast')) current.hits.push(hit);
      current.last = hit.last;
      i = hit.last + 1;
    } else {
      current.last = i;
      i++;
    }
  }
  return mergeTopicless(clauses);
}

/** Words a contrast word may follow in its clause, after the comma that opens it ("il bagno, invece, …" has none). */
const POSTPONED_CONTRAST_REACH = 3;

/** The clause opened by a comma holds only a few words before the contrast word at `i`, and is no contrast clause yet. */
function postponedContrast(clause: Clause, tokens: Token[], i: number): boolean {
  return !clause.contrast && !clause.sentence && tokens[clause.first]!.breakBefore === 1 && i - clause.first <= POSTPONED_CONTRAST_REACH;
}

/**
 * A clause without a topic cue joined to its neighbour by a comma belongs to it ("the room was on
 * the top floor, very bright and spacious"); after a contrast word it stays apart (and inherits
 * the topics before it, in scoreField).
 */
function mergeTopicless(clauses: Clause[]): Clause[] {
  const out: Clause[] = [];
  for (const clause of clauses) {
    const prev = out[out.length - 1];
    const topicless = !clause.hits.some((h) => h.topic !== null);
    const prevTopicless = prev !== undefined && !prev.hits.some((h) => h.topic !== null);
    // An answer that names no topic is about what the question before it names ("Il wifi? Inesistente.").
    if (prev && clause.answer && topicless && !prevTopicless) {
      prev.last = clause.last;
      prev.hits.push(...clause.hits);
      continue;
    }
    // A concession that names nothing ("despite being on a main road, the room was quiet") is not
    // what the clause after it says about its topics.
    const concession = prevTopicless && prev.contrast && !topicless;
    // A concession between commas is an aside: what follows it goes on with the clause before it
    // ("il bagno, seppur piccolo, era pulitissimo").
    const beforeAside = out[out.length - 2];
    const nounless = !clause.hits.some((h) => h.topic !== null && !evaluative(h));
    if (beforeAside && prevTopicless && prev.concessive && !prev.sentence && nounless && !clause.sentence && !clause.contrast) {
      beforeAside.last = clause.last;
      beforeAside.hits.push(...clause.hits);
      continue;
    }
    // An exception stays apart from the verdict after it ("apart from the breakfast, everything was perfect").
    if (prev && !clause.sentence && !clause.contrast && !concession && !prev.exception && (topicless || prevTopicless)) {
      prev.last = clause.last;
      prev.hits.push(...clause.hits);
      continue;
    }
    out.push(clause);
  }
  return out;
}

/** An opinion that names a topic ("dirty", "teuer", "in die Jahre gekommen"); a phrase of a strong cue ("room wasn't ready") names its thing. */
export const evaluative = (hit: Hit): boolean => hit.polarity !== 0 && (hit.first === hit.last || hit.weak);
