// The reading of one field: its clauses (clauses.ts) → polar terms with negation scope, intensifiers,
// excess, unreal forms and fault nouns → each polar term credited to the nearest topic cue of its
// clause → one mention per topic and clause; a topic with no opinion takes the model of implicit
// opinions' verdict (implicit.ts) or its topic's lean.
import { type Clause, clausesOf, evaluative, type Hit } from './clauses.ts';
import { type ImplicitReader, implicitPolarity } from './implicit.ts';
import { type CompiledLexicon, elides } from './lexicon.ts';
import { tokenize } from './tokens.ts';
import leanFile from './leans.json' with { type: 'json' };
import type { CanonicalTopic, EngineLanguage, Polarity } from './types.ts';

/** A topic's usual sentiment when its sentence holds no opinion word (leans.json says how it was measured). */
const LEANS = leanFile.leans as Partial<Record<CanonicalTopic, Polarity>>;

/** Tokens after a negator that it turns ("not very clean", "n'était pas très propre"). */
const NEGATION_SCOPE = 4;
/** Tokens before a negator it turns when nothing polar follows it ("funktionierte nicht", "ne marchait pas"). */
const BACKWARD_SCOPE = 3;
const NEGATED_NEGATIVE = 0.5;
/** Tokens between a weak cue and another topic's evaluative word that still describes it ("noisy room", "room was dusty"). */
const ADJECTIVE_REACH = 2;

export interface EngineOptions {
  /** A topic cue with no opinion in its sentence: kept as a neutral mention of low confidence (default: it scored better on the dev set) or dropped. */
  opinionless: 'drop' | 'neutral';
  /** The model of implicit opinions (implicit.ts) asked about such a mention before its topic's lean; null: leans only. */
  implicit: ImplicitReader | null;
}

/** A mention before the custom categories are matched. */
export interface FieldMention {
  start: number;
  end: number;
  topic: CanonicalTopic;
  sentiment: Polarity;
  confidence: number;
}

export interface FieldReading {
  mentions: FieldMention[];
  /** Sum of every polar term of the field (for the review's overall sentiment). */
  score: number;
  /** How many polar terms the field holds. */
  terms: number;
}


interface TopicScore {
  topic: CanonicalTopic;
  at: number;
  score: number;
  opinion: boolean;
  /** Only weak cues named it. */
  weak: boolean;
  /** A term was its own or nearest to it (not only the clause's shared opinion). */
  direct: boolean;
  /** Named only by opinion words ("dirty", "teuer"), not by a noun. */
  evaluative: boolean;
  /** A lukewarm verdict ("nothing special", "sans plus") makes it neutral. */
  lukewarm: boolean;
  /** The score of the term credited to it from nearest its cue: decides when its terms cancel out. */
  closest: { distance: number; score: number } | null;
}

/** Polar terms of a clause after negation, unreal forms and intensity; each at a token index, with its own topic if the word is also a cue. */
interface Term {
  at: number;
  score: number;
  own: CanonicalTopic | null;
  /** Its own topic is named by a weak cue ("curato", "well kept": upkeep more than cleaning). */
  ownWeak?: boolean;
  /** Not turned by a negator after it (sentence adverbs, absences). */
  fixed?: boolean;
  /** From a fault noun not negated ("noise"): dropped when another term in the clause judges it. */
  problem?: boolean;
  /** From a verb (a negator after it turns it from any distance in its clause). */
  verb?: boolean;
}

function polarTerms(clause: Clause): Term[] {
  const terms: Term[] = [];
  let negUntil = -1;
  let negAt = -1;
  /** The open negation may turn what came before it ("funktionierte nicht"). */
  let negBackward = false;
  /** The open negation holds a negator of time ("mai", "never"): a word of degree after it exclaims. */
  let negNever = false;
  let negUsed = true;
  let irrUntil = -1;
  let irrAt = -1;
  let excessUntil = -1;
  let excessTerm: Term | null = null;
  let negatedVerb: Term | null = null;
  let boost = 1;
  let boostUntil = -1;
  const closeNegation = () => {
    if (negUsed || negAt < 0) return;
    negUsed = true;
    // Nothing polar after the negator but a topic: an absence ("no hot water", "leider kein
    // Kühlschrank"), unless what is absent is a noise ("ni tráfico ni vecinos" is quiet).
    const absent = clause.hits.find((h) => h.topic !== null && h.first > negAt);
    if (absent) {
      terms.push({ at: negAt, score: absent.topic === 'Noise' ? NEGATED_NEGATIVE : -1, own: null, fixed: true });
      return;
    }
    // Else a negator that can follow its verb turns what came just before ("funktionierte nicht"),
    // but not a sentence adverb ("leider nicht" is not "not unfortunately").
    if (negBackward) {
      for (let k = terms.length - 1; k >= 0; k--) {
        const term = terms[k]!;
        // A negator turns the clause's verb however far back it stands (German word order:
        // "funktionierte das WLAN auf unserem Zimmer überhaupt nicht"); other words only nearby, unless
        // the negator ends the clause and so negates its predicate ("hörte man nachts absolut nichts").
        if (term.at < negAt - BACKWARD_SCOPE && !term.verb && negAt < clause.last) continue;
        if (term.at < negAt && !term.fixed) {
          term.score = term.score > 0 ? -term.score : term.score < 0 ? NEGATED_NEGATIVE : -1;
          term.problem = false;
          return;
        }
      }
    }
    // A negation that turns nothing the lexicon knows, in a clause about a topic, says the thing
    // failed ("the shower door doesn't close", "didn't even look up", "ne ferme pas").
    if (clause.hits.some((h) => h.topic !== null)) terms.push({ at: negAt, score: -1, own: null, fixed: true });
  };
  for (const hit of clause.hits) {
    if (negAt >= 0 && !negUsed && hit.first > negUntil) closeNegation();
    const hitNegated = hit.first <= negUntil;
    if (hit.role === 'negator') {
      if (hitNegated) {
        negUntil = hit.last + NEGATION_SCOPE; // "ne … pas", "no … nada": one negation
        negNever ||= hit.exclamation;
      } else {
        negUntil = hit.last + NEGATION_SCOPE;
        negAt = hit.first;
        negBackward = hit.backward;
        negNever = hit.exclamation;
        negUsed = false;
        negatedVerb = null;
      }
      continue;
    }
    if (hit.exclamation && hitNegated && negNever && !negUsed) {
      // "Non ho mai mangiato così male", "never seen such a dirty room": an exclamation of degree,
      // not a negation; the word of degree intensifies what follows.
      negUntil = -1;
      negUsed = true;
    }
    if (hit.role === 'irrealis') {
      irrUntil = clause.last; // "could be a little more attentive": the whole clause is wished for
      irrAt = hit.first;
      continue;
    }
    if (hit.role === 'intensifier' || hit.role === 'downtoner' || hit.role === 'excess') {
      // Negated, a word of excess only says "very": "non troppo pulito", "not too clean" are faults of
      // cleanliness, "not too bad" is praise.
      const role = hit.role === 'excess' && hitNegated ? 'intensifier' : hit.role;
      boost = role === 'intensifier' ? 1.5 : role === 'downtoner' ? 0.6 : 1;
      boostUntil = hit.last + 2;
      if (role === 'excess') {
        excessUntil = hit.last + 2;
        // "far too early", "viel zu früh": too much of anything is a fault, also of a word with no
        // polarity of its own (taken back if a polar word follows within reach).
        excessTerm = { at: hit.first, score: -1, own: null };
        terms.push(excessTerm);
      } else excessUntil = -1;
      continue;
    }
    // A phrase that starts with its own negator ("pas de parking") is not turned again by "n'".
    const negated = hitNegated && !hit.negatorLed;
    const unreal = hit.first <= irrUntil;
    const polarity = hit.cheap && describesCost(clause, hit) ? 1 : hit.polarity;
    if (polarity !== 0) {
      let score = polarity * (hit.first <= boostUntil ? boost : 1);
      // "too soft", "zu weich", "troppo morbidi": a good quality in excess is a fault.
      if (hit.first <= excessUntil) {
        score = -Math.abs(score);
        if (excessTerm) excessTerm.score = 0;
      }
      if (hit.role !== 'adverb') {
        // A wish is a complaint whatever its words ("could be more welcoming", "hätten mehr erwartet
        // als ein abgewohntes Zimmer"); a negated wish is praise ("couldn't have been better").
        if (unreal && !negated) score = -Math.abs(score);
        else if (negated && !unreal) score = score > 0 ? -score : NEGATED_NEGATIVE;
      }
      if (hitNegated && hit.role !== 'adverb') negUsed = true;
      // "couldn't have asked for more": the opinion word, not the verb before it, is what is negated;
      // "n'avait rien à envier": a phrase holding its own negator is the verdict, not a failed verb.
      if (hitNegated && negatedVerb) negatedVerb.score = 0;
      terms.push({ at: hit.first, score, own: hit.topic, ownWeak: hit.weak, fixed: hit.role === 'adverb', problem: hit.problem && !negated, verb: hit.role === 'verb' });
    } else if (hit.role === 'verb') {
      if (negated) {
        negUsed = true;
        negatedVerb = { at: hit.first, score: -1, own: null };
        terms.push(negatedVerb);
      } else terms.push({ at: hit.first, score: 0, own: null, verb: true }); // a target for a negator after it
    }
  }
  closeNegation();
  // A wish with no polar word after it is a complaint too ("could really do with a refurb",
  // "bräuchte eine Renovierung").
  if (irrAt >= 0 && !terms.some((t) => t.at > irrAt && t.score !== 0) && clause.hits.some((h) => h.topic !== null)) {
    terms.push({ at: irrAt, score: -1, own: null, fixed: true });
  }
  const judged = terms.some((t) => t.score !== 0 && !t.problem);
  return terms.filter((t) => t.score !== 0 && !(judged && t.problem));
}


/**
 * The topic cue nearest to `hit` in its clause is a price named by a noun ("il prezzo", "tariffe"; not
 * "caro") or a fault ("rumore", "attesa"): a little of either is good.
 */
function describesCost(clause: Clause, hit: Hit): boolean {
  let nearest: Hit | null = null;
  for (const h of clause.hits) {
    if (h.topic === null || h === hit) continue;
    if (nearest === null || Math.abs(h.first - hit.first) < Math.abs(nearest.first - hit.first)) nearest = h;
  }
  return nearest !== null && ((nearest.topic === 'Value' && !evaluative(nearest)) || nearest.problem);
}

/** Remembers the term nearest to a topic's cue (the later one on a tie). */
function credit(topic: TopicScore, term: Term): void {
  const distance = Math.abs(term.at - topic.at);
  if (topic.closest === null || distance <= topic.closest.distance) topic.closest = { distance, score: term.score };
}

/** Scores the topics of one clause; `inherited` are the topics of the clause before a contrast word, for a clause that names none. */
function scoreClause(clause: Clause, inherited: TopicScore[] | null): { topics: TopicScore[]; score: number; terms: number } {
  const topics: TopicScore[] = [];
  for (const hit of clause.hits) {
    if (hit.topic === null) continue;
    const seen = topics.find((t) => t.topic === hit.topic);
    if (seen) {
      seen.weak &&= hit.weak;
      seen.evaluative &&= evaluative(hit);
    } else topics.push({ topic: hit.topic, at: hit.first, score: 0, opinion: false, weak: hit.weak, direct: false, evaluative: evaluative(hit), lukewarm: false, closest: null });
  }
  const terms = polarTerms(clause);
  let free = 0;
  /** The free opinion without the words of noise: a noisy street says nothing of the location. */
  let freeOfNoise = 0;
  let total = 0;
  for (const term of terms) {
    total += term.score;
    // Every topic without a term of its own shares the clause's opinion, also that of another
    // topic's evaluative word: "the bathroom was dirty" is about Bathroom and Cleanliness.
    free += term.score;
    if (term.own !== 'Noise') freeOfNoise += term.score;
    if (term.own !== null) {
      const own = topics.find((t) => t.topic === term.own)!;
      own.score += term.score;
      own.opinion = true;
      credit(own, term);
      // A weak evaluative word ("dated", "geräumig") describes the noun beside it, not the room,
      // unless the room is named too ("a shabby room").
      own.direct ||= !own.weak || !own.evaluative;
      continue;
    }
    let nearest: TopicScore | null = null;
    for (const t of topics) {
      if (nearest === null || Math.abs(t.at - term.at) < Math.abs(nearest.at - term.at)) nearest = t;
    }
    if (nearest) {
      nearest.score += term.score;
      nearest.opinion = true;
      nearest.direct = true;
      credit(nearest, term);
    }
  }
  // A topic no term was nearest to shares the clause's free opinion ("breakfast and dinner were excellent").
  // The guide's "good location, but the area was noisy at night" is Location praise and Noise blame.
  for (const t of topics) {
    const shared = t.topic === 'Location' ? freeOfNoise : free;
    if (!t.opinion && shared !== 0) {
      t.score = shared;
      t.opinion = true;
    }
  }
  // After a contrast word, a clause naming no noun of its own goes on about the nouns before it
  // ("bagno piccolo ma nuovo e pulitissimo"); "chambre propre mais vieillissante" is about the
  // room, not about cleanliness.
  // So does one that names only a price ("il parcheggio è comodo, ma costa 20 euro al giorno").
  // What they inherit leaves out words of cleanliness and noise, aspects of their own: "carina ma non
  // pulitissima" praises the room and blames its cleanliness; words of upkeep pass ("piccola ma curata").
  const aspect = (term: Term) => (term.own === 'Cleanliness' || term.own === 'Noise') && !term.ownWeak;
  const inheritedOpinion = terms.reduce((sum, term) => (aspect(term) ? sum : sum + term.score), 0);
  // Not one that names a thing outside the topics: "ottima, ma la sala era piccola" is about the room it names.
  const namesOther = clause.hits.some((h) => h.other && h.topic === null);
  const nouns = inherited?.filter((t) => !t.evaluative) ?? [];
  // A price goes on about what is priced; a verdict on value ("but a bit expensive for what you
  // get") is about value alone, not about the staff or the cleanliness named before it.
  const carries = (t: TopicScore) => (t.topic === 'Value' ? !t.evaluative : t.evaluative);
  if (inherited && inheritedOpinion !== 0 && !namesOther && topics.every(carries)) {
    for (const t of nouns.length > 0 || topics.length > 0 ? nouns : inherited) {
      if (!topics.some((own) => own.topic === t.topic)) {
        // The guest's last word on a noun named before the contrast dominates, as on one named after
        // it ("cordiale ma un po' lento" blames the staff); not on a topic that only an opinion word
        // named ("pulita ma un po' spoglia" is not about cleanliness).
        topics.push({ topic: t.topic, at: clause.first, score: inheritedOpinion, opinion: true, weak: false, direct: !t.evaluative, evaluative: false, lukewarm: false, closest: null });
      }
    }
  }
  // A lukewarm verdict after a contrast word, naming nothing, is the guest's last word on the nouns
  // before it: "camera grande, ma niente di che" is a room that is fine, nothing special.
  const lukewarm = clause.hits.some((h) => h.role === 'lukewarm');
  if (inherited && lukewarm && inheritedOpinion === 0 && !namesOther && topics.length === 0) {
    for (const t of nouns) {
      topics.push({ topic: t.topic, at: clause.first, score: 0, opinion: false, weak: false, direct: true, evaluative: false, lukewarm: true, closest: null });
    }
  }
  // "The wifi was weak in our room": Room only says where, unless an opinion is its own or a noise
  // word describes it ("noisy room", "quiet room" are Noise and Room, as the labelling guide has it;
  // "our room was filthy" is Cleanliness only, as the dev labels have it: keeping Room there too
  // scored lower precision on the dev set at the same F1).
  const strong = topics.some((t) => !t.weak);
  const described = (t: TopicScore) =>
    !t.evaluative &&
    terms.some((term) => term.own === 'Noise' && Math.abs(term.at - t.at) <= ADJECTIVE_REACH);
  const kept = strong ? topics.filter((t) => !t.weak || t.direct || described(t)) : topics;
  if (lukewarm) for (const t of kept) t.lukewarm = true;
  return { topics: kept, score: total, terms: terms.length };
}

/** A clause as read: its topics, the sum of its polar terms, and which stretch and sentence it belongs to. */
interface Scored {
  clause: Clause;
  topics: TopicScore[];
  score: number;
  /** Counts sentences and contrast words: an opinion is shared within one such stretch. */
  sentence: number;
  /** Counts sentences only. */
  wholeSentence: number;
}

/** The opinion of the nearest clause of the same sentence that is not itself an exception, 0 when none holds one. */
function verdictBeside(scored: Scored[], at: number): number {
  const { wholeSentence } = scored[at]!;
  for (let d = 1; d < scored.length; d++) {
    for (const other of [scored[at + d], scored[at - d]]) {
      if (other && other.wholeSentence === wholeSentence && !other.clause.exception && other.score !== 0) return other.score;
    }
  }
  return 0;
}

export function readField(lexicon: CompiledLexicon, field: string, options: EngineOptions): FieldReading {
  const tokens = tokenize(field, elides(lexicon.language));
  const reading: FieldReading = { mentions: [], score: 0, terms: 0 };
  if (tokens.length === 0) return reading;
  const clauses = clausesOf(lexicon, tokens, field);
  const scored: Scored[] = [];
  let previous: TopicScore[] | null = null;
  let sentence = 0;
  let wholeSentence = 0;
  for (const clause of clauses) {
    if (clause.sentence) {
      previous = null;
      wholeSentence++;
    }
    // An opinion is shared within a sentence's stretch up to a contrast word, not across it.
    if (clause.sentence || clause.contrast) sentence++;
    const { topics, score, terms } = scoreClause(clause, clause.contrast ? previous : null);
    reading.score += score;
    reading.terms += terms;
    if (topics.length > 0) previous = topics;
    scored.push({ clause, topics, score, sentence, wholeSentence });
  }
  const model = options.implicit?.models.get(lexicon.language as EngineLanguage);
  /** What the model of implicit opinions makes of the sentence around clause c (null: not sure, or no model). */
  const implicitBySentence = new Map<number, Polarity | null>();
  const implicitOf = (c: number): Polarity | null => {
    if (!model) return null;
    const { wholeSentence } = scored[c]!;
    if (implicitBySentence.has(wholeSentence)) return implicitBySentence.get(wholeSentence)!;
    const inSentence = scored.filter((s) => s.wholeSentence === wholeSentence);
    const words = new Set(tokens.slice(inSentence[0]!.clause.first, inSentence[inSentence.length - 1]!.clause.last + 1).map((t) => t.norm));
    const verdict = implicitPolarity(model, words, options.implicit!.threshold);
    implicitBySentence.set(wholeSentence, verdict);
    return verdict;
  };
  for (let c = 0; c < scored.length; c++) {
    const { clause, topics } = scored[c]!;
    const first = clause.lead <= clause.last ? clause.lead : clause.first;
    const verdict = clause.exception ? verdictBeside(scored, c) : 0;
    for (const t of topics) {
      let sentiment: Polarity;
      let confidence: number;
      if (t.lukewarm && Math.abs(t.score) <= 1) {
        sentiment = 'neutral';
        // After a contrast word it is the guest's last word, as for an opinion below.
        confidence = 0.6 + (clause.contrast && t.direct ? 0.2 : 0);
      } else if (t.opinion && t.score === 0 && t.closest !== null) {
        // Opinions that cancel out ("no volvería … enfrente"): the model of implicit opinions where it is
        // sure (cross-validated on the dev set when added: 4 more right of 3,018 pairs), else the one nearest the topic's word.
        sentiment = implicitOf(c) ?? (t.closest.score > 0 ? 'positive' : 'negative');
        confidence = 0.5;
      } else if (t.opinion && t.score !== 0) {
        sentiment = t.score > 0 ? 'positive' : 'negative';
        // After a contrast word the guest's last word on it usually dominates ("a bit soft, but otherwise good");
        // after a concessive one it is the lesser view ("lovely spa, although the treatments are pricey").
        confidence = Math.min(0.97, 0.55 + 0.15 * Math.min(Math.abs(t.score), 2) + (clause.concessive ? -0.1 : clause.contrast && t.direct ? 0.2 : 0));
      } else if (verdict !== 0) {
        // The exception to a verdict is its opposite: "everything was perfect apart from the breakfast".
        sentiment = verdict > 0 ? 'negative' : 'positive';
        confidence = 0.6;
      } else if (t.weak) {
        // A weak cue with no opinion in its clause only says where ("on arrival", "in the room",
        // "…, nemmeno con la finestra aperta"): not a mention.
        continue;
      } else {
        // No opinion in its clause: the nearest opinion of the same sentence, else neutral.
        const near = nearestOpinion(scored, c);
        if (near !== 0) {
          sentiment = near > 0 ? 'positive' : 'negative';
          confidence = 0.45;
        } else if (options.opinionless === 'neutral') {
          // A strong cue takes its topic's usual lean where it has one: "a five-minute stroll to the
          // beach" is praise of the location more often than a neutral statement (leans.json); a
          // thing priced in the same breath takes the price's ("parking costs €18 a night").
          // Before either, the model of implicit opinions, where it is sure ("we had to ask three times").
          const priced = topics.some((o) => o.topic === 'Value' && !o.opinion);
          sentiment = implicitOf(c) ?? (priced ? LEANS.Value : LEANS[t.topic]) ?? 'neutral';
          confidence = 0.3;
        } else continue;
      }
      reading.mentions.push({ start: tokens[first]!.start, end: tokens[clause.last]!.end, topic: t.topic, sentiment, confidence: Math.round(confidence * 100) / 100 });
    }
  }
  return reading;
}

/** The score of the nearest clause of the same sentence (and side of a contrast word) that holds an opinion (the later one on a tie), 0 when none does. */
function nearestOpinion(scored: Scored[], at: number): number {
  const sentence = scored[at]!.sentence;
  for (let d = 1; d < scored.length; d++) {
    const after = scored[at + d];
    if (after && after.sentence === sentence && after.score !== 0) return after.score;
    const before = scored[at - d];
    if (before && before.sentence === sentence && before.score !== 0) return before.score;
    if ((!after || after.sentence !== sentence) && (!before || before.sentence !== sentence)) return 0;
  }
  return 0;
}
