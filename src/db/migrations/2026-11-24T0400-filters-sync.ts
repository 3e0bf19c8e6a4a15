// Issue 13: list filters, incremental sync and operator reads.
//  - reviews: (account_id | node_id, updated_at, id) for `?updated_since=…&sort=updated_at` (the
//    sync order), and (account_id, platform, reviewed_at, id) so a platform filter is one ordered
//    seek per platform instead of a walk through every platform's reviews;
//  - survey_responses: updated_at (backfilled: completed_at, else created_at), bumped on completion,
//    with (survey_id, updated_at, id) for the responses' sync order;
//  - mentions: (account_id, canonical_label_id, created_at, id) for `?topic_id=`;
//  - change_clock: one row, SQLite's per-database monotonic change stamp (db/change-stamp.ts).
// Frozen: never edit, add a new migration instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('reviews_account_updated').on('reviews').columns(['account_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('reviews_node_updated').on('reviews').columns(['node_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('reviews_account_platform_time').on('reviews').columns(['account_id', 'platform', 'reviewed_at', 'id']).execute();

  await db.schema.alterTable('survey_responses').addColumn('updated_at', 'text').execute();
  await sql`update survey_responses set updated_at = coalesce(completed_at, created_at)`.execute(db);
  await db.schema.createIndex('survey_responses_survey_updated').on('survey_responses').columns(['survey_id', 'updated_at', 'id']).execute();

  await db.schema.createIndex('mentions_account_topic_time').on('mentions').columns(['account_id', 'canonical_label_id', 'created_at', 'id']).execute();

  await db.schema.createTable('change_clock')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last', 'text', (c) => c.notNull())
    .execute();
  await db.insertInto('change_clock').values({ id: 1, last: '1970-01-01T00:00:00.000Z' }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_clock').execute();
  await db.schema.dropIndex('mentions_account_topic_time').execute();
  await db.schema.dropIndex('survey_responses_survey_updated').execute();
  await db.schema.alterTable('survey_responses').dropColumn('updated_at').execute();
  await db.schema.dropIndex('reviews_account_platform_time').execute();
  await db.schema.dropIndex('reviews_node_updated').execute();
  await db.schema.dropIndex('reviews_account_updated').execute();
}
