// Timestamps are stored and sent as ISO 8601 UTC with milliseconds, so text order is time order.
import { INSTANT_RULE, parseInstant } from './instant.ts';

/**
 * The stored form of an instant given as epoch milliseconds: the same text as
 * `new Date(ms).toISOString()`, for the present era (years 1970-9999). The date and the minute come
 * from toISOString once a minute; the seconds and milliseconds are appended. toISOString costs about
 * 1 µs on the delivery worker's path, which stamps every attempt twice (bench/webhooks.ts); this
 * costs about 0.05 µs.
 */
export function isoAt(epochMs: number): string {
  const ms = Math.trunc(epochMs); // as Date does: a fractional millisecond is dropped
  const minute = Math.floor(ms / 60_000);
  if (minute !== cachedMinute) {
    cachedMinute = minute;
    cachedPrefix = new Date(minute * 60_000).toISOString().slice(0, 17); // 2026-11-27T18:04:
  }
  const inMinute = ms - minute * 60_000;
  const s = Math.floor(inMinute / 1000);
  const milli = inMinute - s * 1000;
  return `${cachedPrefix}${s < 10 ? '0' : ''}${s}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
let cachedMinute = Number.NaN;
let cachedPrefix = '';

export const nowIso = (): string => isoAt(Date.now());

export const DAY_MS = 86_400_000;

/** Normalises a date-time the caller gave (already validated against INSTANT_RULE) to the stored form. */
export function toIso(value: string | Date): string {
  const iso = typeof value === 'string' ? parseInstant(value) : Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (iso === null) throw new RangeError(`not ${INSTANT_RULE}: ${String(value)}`);
  return iso;
}

export const toIsoOrNull = (value: string | Date | null | undefined): string | null =>
  value === null || value === undefined ? null : toIso(value);
