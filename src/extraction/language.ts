// Language of a review that does not say: eld's n-gram detector (offline, its extra-small database:
// 56 MB RSS against 146 MB for "small", 98.2 % against 99.0 % right on single dev sentences),
// restricted to the engine's five languages so a short text is not read as Catalan.
import { baseLanguage } from '../lib/language-tag.ts';
import { eld } from 'eld/extrasmall';
import { ENGINE_LANGUAGES, type EngineLanguage } from './types.ts';

eld.setLanguageSubset([...ENGINE_LANGUAGES]);

const SUPPORTED = new Set<string>(ENGINE_LANGUAGES);

/** The base language of a BCP 47 tag when it is one of the five languages ("de-CH", "deu" → "de"), else null. */
export function supportedLanguage(tag: string | null): EngineLanguage | null {
  if (!tag) return null;
  const primary = baseLanguage(tag);
  return SUPPORTED.has(primary) ? (primary as EngineLanguage) : null;
}

/** Enough text to tell five languages apart; detection time grows with length (measured: 4× faster on 60–120 word reviews). */
const DETECT_CHARS = 300;

/** The detected language of `text` among the five, or null when there are no letters to go by. */
export function detectLanguage(text: string): EngineLanguage | null {
  if (!/\p{L}{2}/u.test(text)) return null;
  return supportedLanguage(eld.detect(text.length > DETECT_CHARS ? text.slice(0, DETECT_CHARS) : text).language);
}
