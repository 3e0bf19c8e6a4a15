// Retention of webhook history (WEBHOOK_RETENTION_DAYS): finished deliveries (delivered, or failed
// for good) whose last attempt is older than the cut-off are deleted with their attempts (the
// trigger delivery_attempts_deleted), and so are events older than the cut-off that no delivery
// refers to any more: every write of a review, response or guest appends an event whether or not an
// endpoint subscribes, so without this the events table grows as fast as the data itself.
// Pending deliveries and their events are never touched, however old. Work goes in batches walked
// by primary key, each its own short transaction, so a large purge never holds SQLite's single
// writer (or PostgreSQL's row locks) for long and its total cost grows with the table, not with the
// number of batches times the table.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { DAY_MS } from '../../lib/time.ts';

export const RETENTION_BATCH = 1000;

export interface PurgeResult {
  /** Finished deliveries deleted (their attempts went with them). */
  deliveries: number;
  /** Events deleted: older than the cut-off and no longer referred to by any delivery. */
  events: number;
}

/** The cut-off of a retention of `days` days at `now`. */
export const retentionCutoff = (now: Date, days: number): Date => new Date(now.getTime() - days * DAY_MS);

/** Deletes webhook history older than `cutoff` (see the head of this file). */
export async function purgeWebhookHistory(db: Kysely<DB>, cutoff: Date, batch = RETENTION_BATCH): Promise<PurgeResult> {
  const before = cutoff.toISOString();
  return { deliveries: await purgeFinishedDeliveries(db, before, batch), events: await purgeUnreferencedEvents(db, before, batch) };
}

async function purgeFinishedDeliveries(db: Kysely<DB>, before: string, batch: number): Promise<number> {
  let deleted = 0;
  let after = '';
  for (;;) {
    const ids = (await db.selectFrom('webhook_deliveries').select('id')
      .where('id', '>', after).where('status', '!=', 'pending').where('last_attempt_at', '<', before)
      .orderBy('id').limit(batch).execute()).map((row) => row.id);
    if (ids.length === 0) return deleted;
    after = ids.at(-1)!;
    // The conditions again: an operator's re-send may have made one of them pending since it was read.
    const gone = await inTransaction(db, (trx) => trx.deleteFrom('webhook_deliveries')
      .where('id', 'in', ids).where('status', '!=', 'pending').where('last_attempt_at', '<', before)
      .executeTakeFirst());
    deleted += Number(gone.numDeletedRows);
  }
}

async function purgeUnreferencedEvents(db: Kysely<DB>, before: string, batch: number): Promise<number> {
  // A delivery is created in the transaction of its event, stamped with the same time; so only
  // deliveries older than the cut-off can refer to events older than it. After the purge above those
  // are the pending ones and the finished ones still inside the retention: few, read once.
  const referenced = new Set((await db.selectFrom('webhook_deliveries').select('event_id').distinct()
    .where('created_at', '<', before).execute()).map((row) => row.event_id));
  let deleted = 0;
  let after = '';
  for (;;) {
    const ids = (await db.selectFrom('events').select('id').where('id', '>', after).where('created_at', '<', before)
      .orderBy('id').limit(batch).execute()).map((row) => row.id);
    if (ids.length === 0) return deleted;
    after = ids.at(-1)!;
    const unreferenced = ids.filter((id) => !referenced.has(id));
    if (unreferenced.length === 0) continue;
    const gone = await inTransaction(db, (trx) => trx.deleteFrom('events').where('id', 'in', unreferenced).executeTakeFirst());
    deleted += Number(gone.numDeletedRows);
  }
}
