// JSON columns are text in both databases; these read them back.

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  return JSON.parse(text) as T;
}

export const flag = (value: number | null): boolean | null => (value === null ? null : value !== 0);
export const bit = (value: boolean): number => (value ? 1 : 0);
