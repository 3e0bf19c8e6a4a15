// Words of a field with their offsets, and the breaks between them: a sentence ends at . ! ? ; …
// or a line break, a clause at , : ( ) and dashes. Offsets are in the original field (UTF-16 code
// units); the lower-cased copy keeps them because the five languages' letters lower-case in place.

export interface Token {
  /** Lower-cased word, apostrophes unified to '. */
  norm: string;
  start: number;
  end: number;
  /** What separates this token from the previous one: 0 nothing but space, 1 a clause break, 2 a sentence break. */
  breakBefore: 0 | 1 | 2;
  /** The sentence break before it is a question mark: what follows may answer it ("La spa? Una delusione."). */
  question?: true;
}

const isWordChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) ||
  (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) || c === 0xdf;

const isApostrophe = (c: number): boolean => c === 39 || c === 0x2019 || c === 0x2018;

/** `elide`: split after an apostrophe (French and Italian "l'hôtel", "n'était" → "l'", "hôtel"). */
export function tokenize(field: string, elide: boolean): Token[] {
  let lower = field.toLowerCase();
  if (lower.length !== field.length) lower = field; // never for the five languages; keeps offsets true
  const tokens: Token[] = [];
  let gap: 0 | 1 | 2 = 0;
  let question = false;
  let i = 0;
  const n = field.length;
  while (i < n) {
    const c = lower.charCodeAt(i);
    if (isWordChar(c)) {
      const start = i;
      let hasApostrophe = false;
      i++;
      while (i < n) {
        const d = lower.charCodeAt(i);
        if (isWordChar(d)) i++;
        else if (isApostrophe(d) && i + 1 < n && isWordChar(lower.charCodeAt(i + 1))) {
          hasApostrophe = true;
          if (elide) {
            i++;
            break;
          }
          i++;
        } else break;
      }
      let norm = lower.slice(start, i);
      if (hasApostrophe) norm = norm.replace(/[\u2019\u2018]/g, "'");
      const token: Token = { norm, start, end: i, breakBefore: tokens.length === 0 ? 2 : gap };
      if (question && token.breakBefore === 2) token.question = true;
      tokens.push(token);
      gap = 0;
      question = false;
      continue;
    }
    if (c === 46 || c === 33 || c === 63 || c === 59 || c === 10 || c === 0x2026) {
      // "3.5 km" and "approx. 5" are not sentence ends: a dot between digits or before a lower-case word.
      const digitDot = c === 46 && i > 0 && i + 1 < n && isDigit(lower.charCodeAt(i - 1)) && isDigit(lower.charCodeAt(i + 1));
      if (!digitDot) gap = 2;
      question = c === 63;
    } else if (gap < 1 && (c === 44 || c === 58 || c === 40 || c === 41 || c === 0x2013 || c === 0x2014 || (c === 45 && isSpace(lower.charCodeAt(i - 1))))) {
      gap = 1;
    }
    i++;
  }
  return tokens;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 0xa0;
