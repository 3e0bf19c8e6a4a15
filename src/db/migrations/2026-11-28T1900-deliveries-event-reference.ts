// Deleting an event (the retention pass, src/modules/webhooks/retention.ts) no longer scans every
// delivery. The foreign key from webhook_deliveries.event_id to events made each deleted event
// check that no delivery refers to it, and nothing indexes event_id: a full scan of the deliveries
// per event, so a purge of 40,000 events beside 28,000 deliveries took 15 s on SQLite and 30 s on
// PostgreSQL (bench/retention.ts), growing with both tables.
// - PostgreSQL: the foreign key is dropped. An index on event_id would cost every delivery's claim
//   and result (non-HOT updates write every index), and the key's check also ran at each delivery's
//   insert. It proved nothing the writes do not: a delivery is written in its event's transaction
//   (src/events/outbox.ts), and the retention pass deletes only events no delivery refers to.
// - SQLite: the key stays and gets the index it needs. SQLite's updates touch only the indexes of
//   the columns they change, and event_id never changes, so only a delivery's insert pays for it.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // By what it is rather than by PostgreSQL's generated name (webhook_deliveries_event_id_fkey).
    const keys = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = 'webhook_deliveries'::regclass and confrelid = 'events'::regclass and contype = 'f'`.execute(db);
    for (const { name } of keys.rows) await sql`alter table webhook_deliveries drop constraint ${sql.id(name)}`.execute(db);
    return;
  }
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table webhook_deliveries add constraint webhook_deliveries_event_id_fkey
      foreign key (event_id) references events (id)`.execute(db);
    return;
  }
  await db.schema.dropIndex('webhook_deliveries_event').execute();
}
