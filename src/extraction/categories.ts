// An account's own categories: keyword lists per language, matched on a mention's stretch as whole
// words or phrases (a keyword ending in `*` matches words it begins). Compiled once per category
// list (the pipeline passes the same array for an account's reviews).
import type { Token } from './tokens.ts';
import type { CustomCategory } from './types.ts';

interface Keyword {
  words: string[];
  prefix: boolean;
}

/** Per language: the categories' keywords, in the categories' order. */
type CompiledCategories = Map<string, { id: string; keywords: Keyword[] }[]>;

const compiled = new WeakMap<readonly CustomCategory[], CompiledCategories>();

function compile(categories: readonly CustomCategory[]): CompiledCategories {
  const out: CompiledCategories = new Map();
  for (const category of categories) {
    for (const [language, list] of Object.entries(category.keywords)) {
      const keywords: Keyword[] = [];
      for (const raw of list ?? []) {
        const words = raw.toLowerCase().replace(/[\u2019\u2018]/g, "'").split(/[^\p{L}\p{N}'*]+/u).filter(Boolean);
        if (words.length === 0) continue;
        const last = words[words.length - 1]!;
        const prefix = last.endsWith('*');
        if (prefix) words[words.length - 1] = last.slice(0, -1);
        keywords.push({ words, prefix });
      }
      const key = language.split(/[-_]/, 1)[0]!.toLowerCase();
      const forLanguage = out.get(key) ?? [];
      forLanguage.push({ id: category.id, keywords });
      out.set(key, forLanguage);
    }
  }
  return out;
}

function matchesAt(tokens: Token[], i: number, keyword: Keyword): boolean {
  const n = keyword.words.length;
  if (i + n > tokens.length) return false;
  for (let k = 0; k < n; k++) {
    const token = tokens[i + k]!.norm;
    const word = keyword.words[k]!;
    const last = k === n - 1;
    if (token === word || (last && keyword.prefix && token.startsWith(word))) continue;
    return false;
  }
  return true;
}

/** The first category (in the given order) with a keyword among `tokens` (the stretch's words), for `language` or any language when null. */
export function matchCategory(categories: readonly CustomCategory[], tokens: Token[], language: string | null): string | null {
  if (categories.length === 0) return null;
  let table = compiled.get(categories);
  if (!table) {
    table = compile(categories);
    compiled.set(categories, table);
  }
  const candidates = language ? (table.get(language) ?? []) : [...table.values()].flat();
  for (const entry of candidates) {
    for (let i = 0; i < tokens.length; i++) for (const keyword of entry.keywords) if (matchesAt(tokens, i, keyword)) return entry.id;
  }
  return null;
}
