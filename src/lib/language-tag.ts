// The base language of a BCP 47 tag, as two letters wherever ISO 639-1 has them: ICU's canonical
// form maps the three-letter codes guests' systems send ("deu", "ger" → "de"; "est" → "et"), so a
// code is never cut to its first two letters ("est" is not Spanish).

/** "de-CH" → "de", "deu" → "de", "est-EE" → "et", "fil" → "fil"; a tag ICU refuses: its first subtag, lower-cased. */
export function baseLanguage(tag: string): string {
  const trimmed = tag.trim();
  try {
    return new Intl.Locale(Intl.getCanonicalLocales(trimmed.replace(/_/g, '-'))[0]!).language;
  } catch {
    return trimmed.split(/[-_]/, 1)[0]!.toLowerCase();
  }
}
