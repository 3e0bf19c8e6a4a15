// Languages of the pages: a page's language is the user's setting when there is one, else the best
// match of the browser's Accept-Language (negotiator) among the languages the page has, else English.
// Each feature keeps its own catalog (one object per language) and gets a translator from it.
import Negotiator from 'negotiator';
import { baseLanguage } from '../lib/language-tag.ts';

export function negotiateLanguage(acceptLanguage: string | undefined, available: readonly string[], fallback = 'en'): string {
  if (acceptLanguage === undefined || acceptLanguage === '') return fallback;
  const chosen = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([...available]);
  return chosen ?? fallback;
}

export type Catalog<K extends string> = Readonly<Record<K, string>>;
export type Translate<K extends string> = (key: K, vars?: Readonly<Record<string, string | number>>) => string;

// Each (catalogs, language) resolved once into a Map: pages call the translator hundreds of times
// per render, and lookups in the large merged catalog objects cost ~200 ns each in profiles.
const resolvedCatalogs = new WeakMap<object, Map<string, ReadonlyMap<string, string>>>();

function resolved(catalogs: { en: Catalog<string> } & Readonly<Record<string, Partial<Catalog<string>>>>, language: string): ReadonlyMap<string, string> {
  let byLanguage = resolvedCatalogs.get(catalogs);
  if (byLanguage === undefined) {
    byLanguage = new Map();
    resolvedCatalogs.set(catalogs, byLanguage);
  }
  let messages = byLanguage.get(language);
  if (messages === undefined) {
    messages = new Map(Object.entries({ ...catalogs.en, ...catalogOf(catalogs, language) }).filter((entry): entry is [string, string] => entry[1] !== undefined));
    byLanguage.set(language, messages);
  }
  return messages;
}

/** A language's own catalog, or its base language's ("de-CH" reads German); undefined when there is none. */
function catalogOf<C>(catalogs: Readonly<Record<string, C>>, language: string): C | undefined {
  return catalogs[language] ?? catalogs[baseLanguage(language)];
}

/** The language a feature's own words are written in on a page in `language`: that one, or English where the catalogs lack it. */
export function wordsLanguage(catalogs: Readonly<Record<string, unknown>>, language: string): string {
  return catalogOf(catalogs, language) === undefined ? 'en' : language;
}

/** Decimal marks of the pages' languages (English's is the point a number prints with). */
const DECIMAL_MARK: Readonly<Record<string, string>> = { de: ',' };

/** A figure as the language writes it: 3.6 is "3,6" in German; whole numbers print as they are. */
export function formatNumber(value: number, language: string): string {
  const text = String(value);
  const mark = DECIMAL_MARK[language];
  return mark === undefined || Number.isInteger(value) ? text : text.replace('.', mark);
}

/** How much of an instant a page shows. */
export type DatePrecision = 'day' | 'minute' | 'second';

/** Dates as German writes them (28.11.2026, 14:05), made once; other languages keep ISO 8601 (2026-11-28 14:05). */
const GERMAN: Record<DatePrecision, Intl.DateTimeFormat> = {
  day: new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeZone: 'UTC' }),
  minute: new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }),
  second: new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }),
};
const ISO_LENGTH: Record<DatePrecision, number> = { day: 10, minute: 16, second: 19 };

/**
 * A stored instant (ISO 8601, UTC) as the language writes it, to the day, or to the minute or second
 * marked UTC: the server knows no reader's time zone, so it says which one it shows. A table says it
 * once, beside or above its cells, and passes `marked` false for them.
 */
export function formatDate(iso: string, language: string, precision: DatePrecision = 'day', marked = true): string {
  const zone = precision === 'day' || !marked ? '' : ' UTC';
  const instant = language === 'de' ? new Date(iso) : null;
  if (instant !== null && !Number.isNaN(instant.getTime())) return `${GERMAN[precision].format(instant)}${zone}`;
  return `${iso.slice(0, ISO_LENGTH[precision]).replace('T', ' ')}${zone}`;
}

/**
 * A translator for one language from a feature's catalogs: English is complete (the type demands
 * every key), other languages may leave keys out and fall back to English. `{name}` in a message
 * is replaced by `vars.name` (a number written as the language writes it: formatNumber). The catalogs are constants: they are read once.
 */
export function translator<K extends string>(catalogs: { en: Catalog<K> } & Readonly<Record<string, Partial<Catalog<K>>>>, language: string): Translate<K> {
  const messages = resolved(catalogs, language);
  return (key, vars) => {
    const message = messages.get(key)!;
    return vars === undefined ? message : message.replace(/\{(\w+)\}/g, (whole, name: string) => {
      if (!(name in vars)) return whole;
      const value = vars[name]!;
      return typeof value === 'number' ? formatNumber(value, language) : value;
    });
  };
}
