// A webhook attempt's row no longer carries a foreign key to its delivery; a trigger on
// webhook_deliveries deletes a delivery's attempts with it instead (what ON DELETE CASCADE did, and
// it still runs when an endpoint's deletion cascades to its deliveries).
// Why: the foreign key's check ran for every attempt written, and on PostgreSQL that check is a
// query of its own per row (an SPI lookup of the delivery with a share lock): about a seventh of
// PostgreSQL's CPU per delivery in the worker's claim-and-record cycle. The check proved nothing
// the write does not already: the worker inserts an attempt only joined to the delivery row its
// own statement just updated (src/delivery/store-postgres.ts, store-sqlite.ts RECORD).
// SQLite cannot drop a constraint, so the table is rebuilt there.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

const COLUMNS = 'id, delivery_id, attempted_at, status_code, duration_ms, error, response_body';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // By what it is rather than by PostgreSQL's generated name (webhook_attempts_delivery_id_fkey).
    const keys = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = 'webhook_attempts'::regclass and confrelid = 'webhook_deliveries'::regclass and contype = 'f'`.execute(db);
    for (const { name } of keys.rows) await sql`alter table webhook_attempts drop constraint ${sql.id(name)}`.execute(db);
    await sql`create function repute_delivery_deleted() returns trigger language plpgsql as $$
      begin delete from webhook_attempts where delivery_id = old.id; return null; end $$`.execute(db);
    await sql`create trigger delivery_attempts_deleted after delete on webhook_deliveries
      for each row execute function repute_delivery_deleted()`.execute(db);
    return;
  }
  await rebuildAttempts(db, sql``);
  await sql`create trigger delivery_attempts_deleted after delete on webhook_deliveries
    for each row begin delete from webhook_attempts where delivery_id = old.id; end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger delivery_attempts_deleted on webhook_deliveries`.execute(db);
    await sql`drop function repute_delivery_deleted()`.execute(db);
    await sql`alter table webhook_attempts add constraint webhook_attempts_delivery_id_fkey
      foreign key (delivery_id) references webhook_deliveries (id) on delete cascade`.execute(db);
    return;
  }
  await sql`drop trigger delivery_attempts_deleted`.execute(db);
  await rebuildAttempts(db, sql` references webhook_deliveries (id) on delete cascade`);
}

/** SQLite: webhook_attempts again, its delivery_id with the given constraint (none: empty). */
async function rebuildAttempts(db: Kysely<any>, deliveryConstraint: ReturnType<typeof sql>): Promise<void> {
  await sql`create table webhook_attempts_rebuilt (id text primary key, delivery_id text not null${deliveryConstraint},
    attempted_at text not null, status_code integer, duration_ms integer not null, error text, response_body text)`.execute(db);
  await sql`insert into webhook_attempts_rebuilt (${sql.raw(COLUMNS)}) select ${sql.raw(COLUMNS)} from webhook_attempts`.execute(db);
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.alterTable('webhook_attempts_rebuilt').renameTo('webhook_attempts').execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_at']).execute();
}
