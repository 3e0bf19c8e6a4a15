// Change stamps (updated_at) and the sync horizon: what makes `?updated_since=…&sort=updated_at`
// lose nothing when writers commit out of stamp order.
//
// The danger: a writer stamps a row at t and commits later; a reader meanwhile serves rows stamped
// after t; the client moves past t and never sees the row. Each database gets one rule:
//  - SQLite runs one writer at a time (BEGIN IMMEDIATE). The stamp comes from change_clock inside
//    the write transaction: max(now, last + 1 ms), so every transaction's stamp is later than every
//    committed one. A reader sees only committed rows, all stamped before any writer still running.
//  - PostgreSQL runs writers side by side. A writer stamps with its transaction's start time
//    (transaction_timestamp(), the database's clock); a reader serves only rows stamped before the
//    horizon: the start of the oldest transaction still open in the database (pg_stat_activity),
//    less a one-second margin, read in a statement before the page's own. Every transaction that
//    started before the horizon has ended by then, so the page's snapshot holds all its rows, and any
//    later commit carries a stamp at or after the horizon: a client never reads past it.
// A long-open transaction anywhere in the database holds the horizon back: sync pages then stop at
// it (has_more false) and continue once it ends; nothing is skipped.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './adapter.ts';
import { nowIso } from '../lib/time.ts';
import type { DB } from './schema.ts';


const ISO_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The stamp of a change made in this transaction (call it inside the transaction that writes). */
export async function changeStamp(trx: Kysely<DB>): Promise<string> {
  if (isPostgres(trx)) {
    const row = await sql<{ at: string }>`select to_char(transaction_timestamp() at time zone 'UTC', ${sql.raw(ISO_TEXT)}) as at`.execute(trx);
    return row.rows[0]!.at;
  }
  const now = nowIso();
  const last = (await trx.selectFrom('change_clock').select('last').where('id', '=', 1).executeTakeFirst())?.last ?? now;
  const stamp = last < now ? now : new Date(Date.parse(last) + 1).toISOString();
  await trx.updateTable('change_clock').set({ last: stamp }).where('id', '=', 1).execute();
  return stamp;
}

/** The margin under the oldest open transaction's start (a transaction reports its start just after taking it). */
const MARGIN_MS = 1000;

/**
 * How long a read horizon is reused. The oldest open transaction's start only moves forward, so an
 * older reading is never later than a fresh one: reusing it keeps every guarantee and only delays by
 * this much when a change becomes visible to sync. It saves sync pages a round trip each.
 */
const HORIZON_REUSE_MS = 250;
const horizons = new WeakMap<Kysely<DB>, { readAt: number; value: string }>();

/** The stamp below which every change has committed; null when every committed row may be served (SQLite). */
export async function syncHorizon(db: Kysely<DB>): Promise<string | null> {
  if (!isPostgres(db)) return null;
  const now = Date.now();
  const cached = horizons.get(db);
  if (cached && now - cached.readAt < HORIZON_REUSE_MS) return cached.value;
  const row = await sql<{ at: string }>`select to_char((min(xact_start) - ${`${MARGIN_MS} milliseconds`}::interval) at time zone 'UTC',
    ${sql.raw(ISO_TEXT)}) as at from pg_stat_activity where datname = current_database() and xact_start is not null`.execute(db);
  const value = row.rows[0]!.at;
  horizons.set(db, { readAt: now, value });
  return value;
}
