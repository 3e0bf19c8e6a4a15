// The insights engine's entry point: createExtractor() compiles the five languages' lexicons once;
// extract() reads a review's title and text into topic mentions, their sentiment and the review's
// overall sentiment. Pure: no database, no I/O after loading.
import { backstopFor } from './backstop.ts';
import { matchCategory } from './categories.ts';
import { type EngineOptions, type FieldMention, readField } from './engine.ts';
import { detectLanguage, supportedLanguage } from './language.ts';
import { type CompiledLexicon, compileLexicon, elides, type LexiconFile } from './lexicon.ts';
import de from './lexicons/de.json' with { type: 'json' };
import en from './lexicons/en.json' with { type: 'json' };
import es from './lexicons/es.json' with { type: 'json' };
import fr from './lexicons/fr.json' with { type: 'json' };
import it from './lexicons/it.json' with { type: 'json' };
import { type ImplicitFile, implicitReader } from './implicit.ts';
import implicitFile from './implicit.json' with { type: 'json' };
import { tokenize } from './tokens.ts';
import type { CustomCategory, EngineLanguage, ExtractedMention, Extraction, Extractor, Polarity, ReviewText } from './types.ts';

export type { EngineOptions } from './engine.ts';
export * from './types.ts';

const FILES: Record<EngineLanguage, LexiconFile> = {
  en: en as LexiconFile, de: de as LexiconFile, fr: fr as LexiconFile, es: es as LexiconFile, it: it as LexiconFile,
};

/** The lexicons' versions, e.g. to tell which mentions an older engine wrote. */
export const LEXICON_VERSIONS: Record<EngineLanguage, number> = {
  en: FILES.en.version, de: FILES.de.version, fr: FILES.fr.version, es: FILES.es.version, it: FILES.it.version,
};

/** The model of implicit opinions trained on the development set (`npm run train:insights`). */
const IMPLICIT = implicitFile as unknown as ImplicitFile;

/** Overall score per polar term above which a review reads positive (below its negative, negative). */
const OVERALL_THRESHOLD = 0.25;

/** `implicit`: another model of implicit opinions (training and its cross-validation), or null for none. */
export function createExtractor(options: { opinionless?: EngineOptions['opinionless']; implicit?: ImplicitFile | null } = {}): Extractor {
  const implicit = options.implicit === undefined ? IMPLICIT : options.implicit;
  const settings: EngineOptions = { opinionless: options.opinionless ?? 'neutral', implicit: implicit === null ? null : implicitReader(implicit) };
  const lexicons = new Map<EngineLanguage, CompiledLexicon>();
  for (const [language, file] of Object.entries(FILES) as [EngineLanguage, LexiconFile][]) lexicons.set(language, compileLexicon(file, backstopFor(language)));

  return {
    extract(review: ReviewText, categories: readonly CustomCategory[] = []): Extraction {
      const title = review.title ?? '';
      const text = review.text ?? '';
      // A review that names its language is read in it or not at all: a Portuguese text detected
      // among the five would be read as Italian or Spanish, into topics and opinions it does not hold.
      const language = namesLanguage(review.language) ? supportedLanguage(review.language) : detectLanguage(title.length > 0 ? `${title}. ${text}` : text);
      if (language === null) return { language: null, sentiment: null, mentions: [] };
      const lexicon = lexicons.get(language)!;
      const mentions: ExtractedMention[] = [];
      let score = 0;
      let terms = 0;
      for (const [field, value] of [['title', title], ['text', text]] as const) {
        if (value.length === 0) continue;
        const reading = readField(lexicon, value, settings);
        score += reading.score;
        terms += reading.terms;
        for (const m of reading.mentions) mentions.push(toMention(field, value, m, categories, language));
      }
      const sentiment: Polarity | null =
        title.trim() === '' && text.trim() === '' ? null
        : terms === 0 ? 'neutral'
        : score / terms > OVERALL_THRESHOLD ? 'positive'
        : score / terms < -OVERALL_THRESHOLD ? 'negative'
        : 'neutral';
      return { language, sentiment, mentions };
    },
  };
}

/** A tag that says which language, not `und` (BCP 47's "undetermined"). */
function namesLanguage(tag: string | null): tag is string {
  return tag !== null && tag.trim() !== '' && !/^und(?:[-_]|$)/i.test(tag.trim());
}

function toMention(field: 'title' | 'text', value: string, m: FieldMention, categories: readonly CustomCategory[], language: EngineLanguage): ExtractedMention {
  const stretch = value.slice(m.start, m.end);
  const custom = categories.length === 0 ? null : matchCategory(categories, tokenize(stretch, elides(language)), language);
  return { source_field: field, text: stretch, start: m.start, end: m.end, topic: m.topic, sentiment: m.sentiment, confidence: m.confidence, custom_category_id: custom };
}
