// Timestamps are stored and sent as ISO 8601 UTC with milliseconds, so text order is time order.

export const nowIso = (): string => new Date().toISOString();

/** Normalises any date or date-time the caller gave (already validated) to the stored form. */
export function toIso(value: string | Date): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date.toISOString();
}

export const toIsoOrNull = (value: string | Date | null | undefined): string | null =>
  value === null || value === undefined ? null : toIso(value);
