// Timestamps are stored and sent as ISO 8601 UTC with milliseconds, so text order is time order.
import { INSTANT_RULE, parseInstant } from './instant.ts';

export const nowIso = (): string => new Date().toISOString();

/** Normalises a date-time the caller gave (already validated against INSTANT_RULE) to the stored form. */
export function toIso(value: string | Date): string {
  const iso = typeof value === 'string' ? parseInstant(value) : Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (iso === null) throw new RangeError(`not ${INSTANT_RULE}: ${String(value)}`);
  return iso;
}

export const toIsoOrNull = (value: string | Date | null | undefined): string | null =>
  value === null || value === undefined ? null : toIso(value);
