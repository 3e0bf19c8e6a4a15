// The contract between the insights engine (src/extraction/, pure: text in, mentions out) and the
// pipeline that feeds it reviews and stores what it finds (src/modules/insights/, the worker).
// The engine imports nothing of the database; the pipeline imports nothing of the engine but this
// file and its entry point `createExtractor()` (src/extraction/index.ts).

/** The 14 global topics of shared/spec/insights.md, by their exact names. */
export const CANONICAL_TOPICS = [
  'Cleanliness', 'Staff', 'Breakfast', 'Food & drink', 'Location', 'Room', 'Bed',
  'Bathroom', 'Noise', 'Value', 'Wi-Fi', 'Check-in', 'Parking', 'Wellness',
] as const;
export type CanonicalTopic = (typeof CANONICAL_TOPICS)[number];

export const ENGINE_LANGUAGES = ['en', 'de', 'fr', 'es', 'it'] as const;
export type EngineLanguage = (typeof ENGINE_LANGUAGES)[number];

export type Polarity = 'positive' | 'neutral' | 'negative';

/** An account's own category: keyword lists per language (lower-case words or phrases). */
export interface CustomCategory {
  id: string;
  keywords: Partial<Record<string, string[]>>;
}

export interface ReviewText {
  title: string | null;
  text: string | null;
  /** The review's own language code when it has one (any BCP 47 tag; the engine reads the primary subtag). */
  language: string | null;
}

export interface ExtractedMention {
  source_field: 'title' | 'text';
  /** The verbatim stretch of the field about this topic: a clause or sentence, never the whole review. */
  text: string;
  /** Offsets of `text` in the field (UTF-16 code units), so `field.slice(start, end) === text`. */
  start: number;
  end: number;
  topic: CanonicalTopic;
  sentiment: Polarity;
  /** 0–1. */
  confidence: number;
  /** The custom category whose keywords matched this stretch, if any. */
  custom_category_id: string | null;
}

export interface Extraction {
  /** The language used: the review's when it names one (null when that is none of the five), else detected; null when there is nothing to detect. */
  language: EngineLanguage | null;
  /** Overall sentiment computed from the text (for reviews that arrive without one). */
  sentiment: Polarity | null;
  mentions: ExtractedMention[];
}

export interface Extractor {
  extract(review: ReviewText, categories?: readonly CustomCategory[]): Extraction;
}
