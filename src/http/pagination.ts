// Opaque keyset cursors: base64url of [sort value, id]. Every list pages newest first on (time, id).
import type { Keyset } from '../db/keyset.ts';
import { isUuid } from '../lib/ids.ts';
import { AppError } from './errors.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function encodeCursor(key: Keyset): string {
  return Buffer.from(JSON.stringify([key.time, key.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Keyset | null {
  if (cursor === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || !ISO.test(parsed[0]) || !isUuid(parsed[1])) {
    throw new AppError(400, 'querystring.cursor is malformed: pass the next_cursor of the previous page unchanged');
  }
  return { time: parsed[0], id: parsed[1] };
}

export interface PageOf<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Rows were fetched with limit + 1: the extra row only says that another page exists. */
export function toPage<R, T>(rows: R[], limit: number, keyOf: (row: R) => Keyset, map: (row: R) => T): PageOf<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    next_cursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null,
    has_more: hasMore,
  };
}
