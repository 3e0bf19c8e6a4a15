// A language's lexicon (src/extraction/lexicons/<lang>.json, versioned data) compiled once into
// lookup structures: a map from exact first words and a character trie of prefix first words to
// the phrases that start there, so matching a token costs one map lookup and one trie walk, with no
// regular expression per cue.
import type { CanonicalTopic } from './types.ts';

/** The JSON shape of a lexicon file. Patterns are lower-case words separated by spaces; a word ending in `*` matches any word it begins. */
export interface LexiconFile {
  version: number;
  language: string;
  /** German-style compounds: cues also match inside a longer word ("Frühstücksbuffet", "Zimmerreinigung"). */
  compounds?: boolean;
  /**
   * Negators that may follow the verb they negate, anywhere before them in the clause (German "nicht",
   * "nie": "funktionierte das WLAN nicht"). Every other negator only looks ahead: a preposition such as
   * "ohne" negates what follows it ("warten, ohne ein Wort der Entschuldigung" is no praise of the wait),
   * and elsewhere "apenas cabía" leaves "diminuto" alone. Each must be listed in `negators` too.
   */
  negatesBackward?: string[];
  topics: Record<CanonicalTopic, string[]>;
  positive: string[];
  negative: string[];
  /** Words that turn the polarity of what follows (or, when nothing polar follows, of what precedes). */
  negators: string[];
  /** Unreal or wishing forms ("could have been", "hätte … können"): they turn what follows, like a negator. */
  irrealis: string[];
  intensifiers: string[];
  downtoners: string[];
  /** Words that start a new clause (but, aber, mais, pero, ma…). */
  contrast: string[];
  /** Contrast words that open a concession (although, obwohl, bien que, aunque, anche se): the clause they open is the lesser view, not the last word. */
  concessive?: string[];
  /**
   * Contrast words that open an exception to the verdict beside them ("apart from", "bis auf", "à part",
   * "salvo", "tranne"): what the exception names with no opinion of its own takes the opposite of that
   * verdict ("everything was perfect apart from the breakfast").
   */
  exceptions?: string[];
  /** Words of excess (too, viel zu, trop, demasiado, troppo): they make what follows them a fault ("too soft", "far too early"). */
  excess?: string[];
  /** Neutral verbs that say something failed when negated ("did not work", "funktionierte nicht"). */
  verbs: string[];
  /** Polar sentence adverbs a negator never turns ("unfortunately", "leider"); also listed as negative or positive. */
  adverbs?: string[];
  /** Lukewarm verdicts ("nothing special", "sans plus", "nella media"): the topic is neutral. */
  lukewarm?: string[];
  /** Phrases that are not about any topic and mask the cues inside them ("room for improvement" is not Room). */
  ignore?: string[];
  /**
   * Nouns that name a fault by themselves ("noise", "dust", "Schimmel"): negative when nothing else
   * in their clause judges them, but another opinion there is the verdict on them ("no complaints
   * about the noise", "the noise was bearable"). Also listed as topic cues and as negative.
   */
  problems?: string[];
  /**
   * Things outside the 14 topics a clause can be about (the lift, the garden, the corridors): a clause
   * after a contrast word that names one is about it, not about the nouns before the contrast word.
   */
  others?: string[];
  /**
   * Words that hold no opinion although a polar prefix matches them: "Sauberkeit", "propreté",
   * "limpieza" name cleanliness and do not praise it as "sauber*", "propre*", "limpi*" do; "comodino"
   * is a bedside table, not "comod*".
   */
  neutral?: string[];
  /**
   * Contrast words that may follow the first words of their clause ("camera pulita, bagno invece
   * piccolo", "ottimo invece il ristorante"): the new view starts at the comma before them. Each is
   * listed among the contrast words too.
   */
  postponed?: string[];
  /**
   * Words of a low amount ("basso", "contenuto", "minimo", "ridotto"): praise of a price or a fault
   * they describe (the nearest topic cue in their clause is Value named by a noun, or a fault noun:
   * "il prezzo era più basso che altrove", "tariffe contenute", "rumore minimo"), else their own
   * polarity, if any ("spazi ridotti").
   */
  cheap?: string[];
  /**
   * Negators of time ("mai", "never") and intensifiers of degree ("così", "so"): a word of degree
   * after such a negator makes an exclamation, not a negation ("mai visto un bagno così sporco",
   * "never seen such a dirty room"). Each is listed among the negators or intensifiers too.
   */
  exclamations?: string[];
  /** Topic cues that often only say where something else is ("in our room", "at reception"): their topic is dropped when another topic is in the clause and no opinion is theirs. */
  weak?: string[];
}

export type Role = 'negator' | 'irrealis' | 'intensifier' | 'downtoner' | 'excess' | 'contrast' | 'verb' | 'adverb' | 'lukewarm';

/** Everything a phrase means; one phrase may be a topic cue and polar at once ("dirty", "noisy"). */
export interface Phrase {
  /** The words after the first (each exact or, ending in `*`, a prefix). */
  rest: Word[];
  /** Length of the phrase in characters (its words without `*`), to prefer the longest match. */
  weight: number;
  topic: CanonicalTopic | null;
  polarity: number;
  role: Role | null;
  ignore: boolean;
  weak: boolean;
  /** Names a fault by itself (`problems`): yields to another opinion in its clause. */
  problem: boolean;
  /** A contrast word that opens a concession (`concessive`). */
  concessive: boolean;
  /** A contrast word that opens an exception (`exceptions`). */
  exception: boolean;
  /** A polar phrase that starts with a negator ("pas de parking", "kein Problem"): it holds its own negation, so a negator before it ("n'a pas de parking") does not turn it again. */
  negatorLed: boolean;
  /** A negator that may follow what it negates (`negatesBackward`). */
  backward: boolean;
  /** Holds no opinion, whatever a shorter polar prefix says (`neutral`). */
  neutral: boolean;
  /** Names a thing outside the topics (`others`). */
  other: boolean;
  /** A negator of time or an intensifier of degree: together they exclaim (`exclamations`). */
  exclamation: boolean;
  /** A word of a low amount: praise of a price or a fault it describes (`cheap`). */
  cheap: boolean;
  /** A contrast word that may follow the first words of its clause (`postponed`). */
  postponed: boolean;
}

/** What a hit in a clause takes over from the phrase it matched (src/extraction/clauses.ts). */
export type Meaning = Pick<Phrase, 'topic' | 'polarity' | 'role' | 'weak' | 'problem' | 'concessive' | 'exception' | 'negatorLed' | 'backward' | 'other' | 'exclamation' | 'cheap' | 'postponed'>;

/** A phrase's meaning before any list of the lexicon names it, and a plain opinion's: nothing. */
export const NO_MEANING: Readonly<Meaning> = {
  topic: null, polarity: 0, role: null, weak: false, problem: false, concessive: false, exception: false, negatorLed: false, backward: false, other: false, exclamation: false, cheap: false, postponed: false,
};

interface Word {
  text: string;
  prefix: boolean;
}

interface TrieNode {
  next: Map<number, TrieNode>;
  /** Phrases whose first word is a prefix ending here. */
  prefixes: Phrase[] | null;
  /** Phrases whose first word is exactly the path to here (used inside compounds, where words end at the token's end). */
  exact: Phrase[] | null;
}

export interface CompiledLexicon {
  language: string;
  version: number;
  compounds: boolean;
  exact: Map<string, Phrase[]>;
  trie: TrieNode;
  /** Words of the general polarity list (backstop.ts) to their weight, read where the lexicon knows a word not. */
  backstop: ReadonlyMap<string, number>;
}

const node = (): TrieNode => ({ next: new Map(), prefixes: null, exact: null });

function parseWord(raw: string): Word {
  return raw.endsWith('*') ? { text: raw.slice(0, -1), prefix: true } : { text: raw, prefix: false };
}

export function compileLexicon(file: LexiconFile, backstop: ReadonlyMap<string, number> = new Map()): CompiledLexicon {
  const elide = elides(file.language);
  const byPattern = new Map<string, { first: Word; phrase: Phrase }>();
  const entry = (pattern: string) => {
    let key = pattern.trim().toLowerCase().replace(/\s+/g, ' ');
    // The tokenizer splits French and Italian elisions after the apostrophe ("d'eau" → "d'", "eau").
    if (elide) key = key.replace(/'(?=\S)/g, "' ");
    let found = byPattern.get(key);
    if (!found) {
      const words = key.split(' ').map(parseWord);
      const weight = words.reduce((n, w) => n + w.text.length + 1, 0);
      found = { first: words[0]!, phrase: { rest: words.slice(1), weight, ...NO_MEANING, ignore: false, neutral: false } };
      byPattern.set(key, found);
    }
    return found.phrase;
  };
  for (const [topic, cues] of Object.entries(file.topics) as [CanonicalTopic, string[]][]) {
    for (const cue of cues) entry(cue).topic = topic;
  }
  // "pattern|2": a weight (a strong word, or a phrase that outweighs a polar word inside it).
  const weighted = (p: string): [string, number] => {
    const bar = p.indexOf('|');
    return bar < 0 ? [p, 1] : [p.slice(0, bar), Number(p.slice(bar + 1))];
  };
  for (const p of file.positive) {
    const [pattern, weight] = weighted(p);
    entry(pattern).polarity = weight;
  }
  for (const p of file.negative) {
    const [pattern, weight] = weighted(p);
    entry(pattern).polarity = -weight;
  }
  const roles: [Role, string[]][] = [
    ['negator', file.negators], ['irrealis', file.irrealis], ['intensifier', file.intensifiers],
    ['downtoner', file.downtoners], ['excess', file.excess ?? []], ['contrast', [...file.contrast, ...(file.concessive ?? []), ...(file.exceptions ?? [])]], ['verb', file.verbs], ['adverb', file.adverbs ?? []],
    ['lukewarm', file.lukewarm ?? []],
  ];
  for (const [role, patterns] of roles) for (const p of patterns) entry(p).role = role;
  for (const p of file.ignore ?? []) entry(p).ignore = true;
  for (const p of file.weak ?? []) entry(p).weak = true;
  for (const p of file.problems ?? []) entry(p).problem = true;
  for (const p of file.concessive ?? []) entry(p).concessive = true;
  for (const p of file.exceptions ?? []) entry(p).exception = true;
  for (const p of file.neutral ?? []) entry(p).neutral = true;
  for (const p of file.others ?? []) entry(p).other = true;
  for (const p of file.cheap ?? []) entry(p).cheap = true;
  for (const p of file.postponed ?? []) {
    const word = entry(p);
    if (word.role !== 'contrast') throw new Error(`lexicon ${file.language}: postponed "${p}" is not among the contrast words`);
    word.postponed = true;
  }
  for (const p of file.exclamations ?? []) {
    const word = entry(p);
    if (word.role !== 'negator' && word.role !== 'intensifier') throw new Error(`lexicon ${file.language}: exclamation "${p}" is neither a negator nor an intensifier`);
    word.exclamation = true;
  }
  for (const p of file.negatesBackward ?? []) {
    const negator = entry(p);
    if (negator.role !== 'negator') throw new Error(`lexicon ${file.language}: negatesBackward "${p}" is not among the negators`);
    negator.backward = true;
  }
  const negatorWords = new Set(file.negators.filter((n) => !n.includes(' ')).map((n) => n.toLowerCase()));
  for (const [key, { phrase }] of byPattern) {
    if (phrase.polarity !== 0 && phrase.rest.length > 0 && negatorWords.has(key.split(' ')[0]!)) phrase.negatorLed = true;
  }
  const exact = new Map<string, Phrase[]>();
  const trie = node();
  for (const { first, phrase } of byPattern.values()) {
    let at = trie;
    for (let i = 0; i < first.text.length; i++) {
      const c = first.text.charCodeAt(i);
      let child = at.next.get(c);
      if (!child) {
        child = node();
        at.next.set(c, child);
      }
      at = child;
    }
    if (first.prefix) {
      at.prefixes ??= [];
      at.prefixes.push(phrase);
    } else {
      at.exact ??= [];
      at.exact.push(phrase);
      const list = exact.get(first.text);
      if (list) list.push(phrase);
      else exact.set(first.text, [phrase]);
    }
  }
  // A polar word or phrase holding a topic word is about that topic ("too expensive", "hidden
  // charges"; "schmutzig" under the cue "schmutz*").
  const topicPhrases = [...byPattern].filter(([key, { phrase }]) => phrase.topic !== null && key.includes(' ') && !key.includes('*'));
  for (const [key, { phrase }] of byPattern) {
    if (phrase.topic !== null || phrase.ignore || phrase.polarity === 0) continue;
    const inner = topicPhrases.find(([cue]) => ` ${key} `.includes(` ${cue} `));
    if (inner) {
      phrase.topic = inner[1].phrase.topic;
      phrase.weak = inner[1].phrase.weak;
      continue;
    }
    for (const word of key.split(' ')) {
      const cue = topicCueOf(trie, word.replace(/\*$/, ''));
      // Not from a weak cue: "fuera de servicio" is not about the staff.
      if (cue && !cue.weak) {
        phrase.topic = cue.topic;
        phrase.weak = cue.weak;
        break;
      }
    }
  }
  return { language: file.language, version: file.version, compounds: file.compounds === true, exact, trie, backstop };
}

/** The single-word topic cue that matches `word` (exactly or as its prefix), the longest one. */
function topicCueOf(trie: TrieNode, word: string): Phrase | null {
  let found: Phrase | null = null;
  let at: TrieNode | undefined = trie;
  for (let i = 0; i < word.length && at; i++) {
    at = at.next.get(word.charCodeAt(i));
    const last = i === word.length - 1;
    for (const p of [...(at?.prefixes ?? []), ...(last ? (at?.exact ?? []) : [])]) if (p.topic !== null && p.rest.length === 0) found = p;
  }
  return found;
}

/** French and Italian split words after an apostrophe ("l'hôtel", "dell'albergo"). */
export const elides = (language: string): boolean => language === 'fr' || language === 'it';

/** Does `word` (a pattern word) match the token `token`? */
export function wordMatches(word: Word, token: string): boolean {
  return word.prefix ? token.startsWith(word.text) : token === word.text;
}

/**
 * Calls `found(phrase, charsMatched)` for every phrase whose first word matches `token`: exact
 * words, prefix words, and in compounding languages cues inside the word (a prefix cue anywhere
 * after the first few letters, an exact cue ending at the word's end).
 */
export function firstWordMatches(lexicon: CompiledLexicon, token: string, found: (phrase: Phrase, chars: number, inside: boolean) => void): void {
  const whole = lexicon.exact.get(token);
  if (whole) for (const p of whole) found(p, token.length, false);
  walk(lexicon.trie, token, 0, found, true);
  if (lexicon.compounds && token.length >= 7) {
    for (let start = 3; start <= token.length - 4; start++) walk(lexicon.trie, token, start, found, false);
  }
}

function walk(trie: TrieNode, token: string, start: number, found: (phrase: Phrase, chars: number, inside: boolean) => void, atStart: boolean): void {
  let at: TrieNode | undefined = trie;
  for (let i = start; i < token.length; i++) {
    at = at.next.get(token.charCodeAt(i));
    if (!at) return;
    const depth = i - start + 1;
    // Inside a compound, short cues match by chance ("bar" in "Barrierefreiheit" is at the start anyway).
    if (at.prefixes && (atStart || depth >= 4)) for (const p of at.prefixes) found(p, depth, !atStart);
    if (!atStart && at.exact && i === token.length - 1 && depth >= 3) for (const p of at.exact) found(p, depth, true);
  }
}
