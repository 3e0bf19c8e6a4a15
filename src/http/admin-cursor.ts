// The cursor of the admin API's lists: the last row's (created_at, id), base64url, newest first.
// Operators are trusted, so unlike the public API's cursors it is neither sealed nor bound to a key;
// a cursor that does not decode is still a 400 naming the parameter, with the public API's code.
import { AppError } from './errors.ts';

export interface AdminKeyset {
  created_at: string;
  id: string;
}

export const encodeAdminCursor = (row: AdminKeyset): string => Buffer.from(`${row.created_at}|${row.id}`).toString('base64url');

export function decodeAdminCursor(cursor: string | undefined): AdminKeyset | null {
  if (cursor === undefined) return null;
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw new AppError(400, 'querystring.cursor is not a next_cursor this list gave', {}, 'cursor_invalid');
  return { created_at: createdAt, id };
}

/** A page from limit + 1 rows (newest first): the data, and the cursor of the next page when there is one. */
export function adminPage<R extends AdminKeyset, T>(rows: R[], limit: number, map: (row: R) => T): { data: T[]; next_cursor: string | null; has_more: boolean } {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data: page.map(map), next_cursor: hasMore ? encodeAdminCursor(page.at(-1)!) : null, has_more: hasMore };
}
