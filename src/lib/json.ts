// JSON columns are text in both databases; this reads them back.

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  return JSON.parse(text) as T;
}
