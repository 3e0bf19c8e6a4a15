// Opaque keyset cursors, bound to the list they page. Every list pages newest first on (time, id);
// a cursor is base64url of [sort value, id], a dot, and a truncated HMAC-SHA256 (under a key derived
// from REPUTE_SECRET_KEY) of that position together with what the list is: the account, the route
// and its path parameters (which survey's responses), and its filters (every query parameter besides
// cursor and limit, so a cursor cannot carry one filtered list's position into another). A cursor that was forged, edited, or taken
// from another list or account is refused with 400, instead of paging from wherever it points.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Keyset } from '../db/keyset.ts';
import { isUuid } from '../lib/ids.ts';
import { AppError } from './errors.ts';

export interface PageOf<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** 96 bits: a forged cursor is accepted with probability 2^-96. */
const MAC_BYTES = 12;

/** The plain position (no binding): what toPage writes before a route seals it. */
function encodePosition(key: Keyset): string {
  return Buffer.from(JSON.stringify([key.time, key.id])).toString('base64url');
}

function decodePosition(text: string): Keyset | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || !ISO.test(parsed[0]) || !isUuid(parsed[1])) return null;
  return { time: parsed[0], id: parsed[1] };
}

/** What a cursor is bound to: the account, the route and its path parameters. */
export function listBinding(accountId: string, routeUrl: string, params: unknown): string {
  return `${accountId}\n${routeUrl}\n${JSON.stringify(params ?? {})}`;
}

/**
 * The URL pattern of a list route, prefix included (/api/v4/reviews): what its cursors are bound to.
 * Worked out once when the route is declared: request.routeOptions.url says the same but builds a
 * new object on every read.
 */
export const listUrl = (app: FastifyInstance, path: string): string => `${app.prefix}${path}`;

export interface Cursors {
  /** The position a request's cursor names, null without one; 400 when it is not a cursor of this list. */
  open(binding: string, cursor: string | undefined): Keyset | null;
  /** The cursor of a position in a list (benchmarks start deep in a list with one). */
  seal(binding: string, key: Keyset): string;
  /** The page with its next_cursor bound to the list. */
  sealPage<T>(binding: string, page: PageOf<T>): PageOf<T>;
}

const codecs = new WeakMap<Buffer, Cursors>();

/** The cursor codec of a configuration's secret key (derived once per key). */
export function cursorsFor(secretKey: Buffer): Cursors {
  let codec = codecs.get(secretKey);
  if (codec) return codec;
  const macKey = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'repute list cursor v1', 32));
  const mac = (binding: string, position: string) =>
    createHmac('sha256', macKey).update(`${binding}\n${position}`).digest().subarray(0, MAC_BYTES);
  const sealPosition = (binding: string, position: string) => `${position}.${mac(binding, position).toString('base64url')}`;
  codec = {
    open(binding, cursor) {
      if (cursor === undefined) return null;
      const [position = '', tag = '', extra] = cursor.split('.');
      const given = Buffer.from(tag, 'base64url');
      const valid = extra === undefined && given.length === MAC_BYTES && given.toString('base64url') === tag
        && timingSafeEqual(given, mac(binding, position));
      const key = valid ? decodePosition(position) : null;
      if (key === null) throw new AppError(400, 'querystring.cursor is invalid: pass the next_cursor of the previous page of this list unchanged, with the same filters', {}, 'cursor_invalid');
      return key;
    },
    seal: (binding, key) => sealPosition(binding, encodePosition(key)),
    sealPage: (binding, page) => (page.next_cursor === null ? page : { ...page, next_cursor: sealPosition(binding, page.next_cursor) }),
  };
  codecs.set(secretKey, codec);
  return codec;
}

/** A paginated route's answer (`url`: its listUrl): the request's cursor opened against its list, the next one sealed to it. */
export async function pageOf<T>(
  cursors: Cursors, url: string, request: FastifyRequest, query: { cursor?: string; limit?: number },
  fetch: (after: Keyset | null, limit: number) => Promise<PageOf<T>>,
): Promise<PageOf<T>> {
  const list = listBinding(request.principal.accountId, url, request.params);
  const filters = filterBinding(query);
  const binding = filters === '' ? list : `${list}\n${filters}`;
  return cursors.sealPage(binding, await fetch(cursors.open(binding, query.cursor), query.limit ?? 25));
}

/** True when a list query has more than its page parameters (an unfiltered list stays on its prepared path). */
export function hasFilters(query: object): boolean {
  for (const name in query) if (name !== 'cursor' && name !== 'limit') return true;
  return false;
}

/**
 * The filters of a list request as one text: every query parameter but cursor and limit, by name,
 * repeated values in sorted order (`platform=a&platform=b` is `platform=b&platform=a`). '' without any,
 * so an unfiltered list's cursors are what they always were (and cost nothing more).
 */
export function filterBinding(query: object): string {
  let names: string[] | null = null;
  for (const name in query) {
    if (name === 'cursor' || name === 'limit') continue;
    names ??= [];
    names.push(name);
  }
  if (names === null) return '';
  const q = query as Record<string, unknown>;
  return JSON.stringify(names.sort().map((name) => {
    const value = q[name];
    return [name, Array.isArray(value) ? [...value].map(String).sort() : value];
  }));
}

/** Rows were fetched with limit + 1: the extra row only says that another page exists. Routes seal next_cursor. */
export function toPage<R, T>(rows: R[], limit: number, keyOf: (row: R) => Keyset, map: (row: R) => T): PageOf<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    next_cursor: hasMore && last !== undefined ? encodePosition(keyOf(last)) : null,
    has_more: hasMore,
  };
}
