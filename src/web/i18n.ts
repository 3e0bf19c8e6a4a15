// Languages of the pages: a page's language is the user's setting when there is one, else the best
// match of the browser's Accept-Language (negotiator) among the languages the page has, else English.
// Each feature keeps its own catalog (one object per language) and gets a translator from it.
import Negotiator from 'negotiator';

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
    messages = new Map(Object.entries({ ...catalogs.en, ...catalogs[language] }).filter((entry): entry is [string, string] => entry[1] !== undefined));
    byLanguage.set(language, messages);
  }
  return messages;
}

/** Decimal marks of the pages' languages (English's is the point a number prints with). */
const DECIMAL_MARK: Readonly<Record<string, string>> = { de: ',' };

/** A figure as the language writes it: 3.6 is "3,6" in German; whole numbers print as they are. */
export function formatNumber(value: number, language: string): string {
  const text = String(value);
  const mark = DECIMAL_MARK[language];
  return mark === undefined || Number.isInteger(value) ? text : text.replace('.', mark);
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
