// The one definition of an accepted timestamp, shared by every write path (admin and public bodies,
// `repute import`, guest pushes): an RFC 3339 date-time with an offset (Z or ±HH:MM) that names a
// real instant between 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z once its offset is
// applied; stored as UTC ISO 8601 with milliseconds, so text order is time order in both databases.
// Leap seconds (…:60) are refused: JavaScript time has no such instant, and turning one into the
// next second would store a time the sender did not write.

export const EARLIEST_MS = 0;
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const INSTANT_RULE = 'a date-time with an offset (2026-11-22T14:00:00Z or +01:00) between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Milliseconds since the epoch of a calendar date and time, or null when a field is out of range. */
function epochMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  // Years before 1969 are out of range whatever the offset (and Date.UTC reads 0–99 as 1900–1999).
  if (y < 1969 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

const inRange = (ms: number | null): string | null =>
  ms === null || ms < EARLIEST_MS || ms > LATEST_MS ? null : new Date(ms).toISOString();

/** The stored form (2026-11-22T13:00:00.000Z) of a date-time, or null when it is not an accepted one. */
export function parseInstant(text: string): string | null {
  const m = DATE_TIME.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, fraction = '', zulu, sign, oh, om] = m;
  // Digits past the millisecond are dropped (truncated, so an instant never moves into the next ms).
  const local = epochMs(+y!, +mo!, +d!, +h!, +mi!, +s!, Number(fraction.padEnd(3, '0').slice(0, 3)));
  if (local === null) return null;
  if (zulu !== undefined) return inRange(local);
  if (+oh! > 23 || +om! > 59) return null;
  const offset = (+oh! * 60 + +om!) * 60_000;
  return inRange(sign === '+' ? local - offset : local + offset);
}

/** A calendar date (2026-11-22) as midnight UTC in the stored form, or null. */
export function parseDate(text: string): string | null {
  const m = DATE.exec(text);
  return m === null ? null : inRange(epochMs(+m[1]!, +m[2]!, +m[3]!, 0, 0, 0, 0));
}

export const isInstant = (text: string): boolean => parseInstant(text) !== null;
