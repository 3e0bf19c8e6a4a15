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

/**
 * A translator for one language from a feature's catalogs: English is complete (the type demands
 * every key), other languages may leave keys out and fall back to English. `{name}` in a message
 * is replaced by `vars.name`.
 */
export function translator<K extends string>(catalogs: { en: Catalog<K> } & Readonly<Record<string, Partial<Catalog<K>>>>, language: string): Translate<K> {
  const primary = catalogs[language] ?? catalogs.en;
  return (key, vars) => {
    const message = primary[key] ?? catalogs.en[key];
    return vars === undefined ? message : message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
  };
}
