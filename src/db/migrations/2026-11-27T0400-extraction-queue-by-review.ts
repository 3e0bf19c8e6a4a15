// The extraction queue is claimed in the order of its primary key (review ids are UUIDv7, so oldest
// review first) instead of through a separate index on (lease_until, enqueued_at): every queued
// review wrote one more B-tree entry for that index, in the transaction of the write that queued it,
// and the queue's due rows are the front of the key anyway (claimed rows leave it within seconds).
// On SQLite the queue also becomes a WITHOUT ROWID table, so a queued review writes one B-tree entry
// instead of three (rowid table, key index, due index). Measured by bench/insights-pipeline.ts.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('extraction_queue_due').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create table extraction_queue_by_review (review_id text primary key, account_id text not null, enqueued_at text not null,
    lease_until text, attempts integer not null default 0) without rowid`.execute(db);
  await sql`insert into extraction_queue_by_review (review_id, account_id, enqueued_at, lease_until, attempts)
    select review_id, account_id, enqueued_at, lease_until, attempts from extraction_queue`.execute(db);
  await db.schema.dropTable('extraction_queue').execute();
  await db.schema.alterTable('extraction_queue_by_review').renameTo('extraction_queue').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await sql`create table extraction_queue_with_rowid (review_id text primary key, account_id text not null, enqueued_at text not null,
      lease_until text, attempts integer not null default 0)`.execute(db);
    await sql`insert into extraction_queue_with_rowid select review_id, account_id, enqueued_at, lease_until, attempts from extraction_queue`.execute(db);
    await db.schema.dropTable('extraction_queue').execute();
    await db.schema.alterTable('extraction_queue_with_rowid').renameTo('extraction_queue').execute();
  }
  await db.schema.createIndex('extraction_queue_due').on('extraction_queue').columns(['lease_until', 'enqueued_at']).execute();
}
