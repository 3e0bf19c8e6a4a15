// The insights engine's tables (shared/spec/insights.md):
// - the 14 canonical topics, global (account_id and language null), with fixed ids so every
//   database names them alike; a database that already has a global topic of that name keeps it;
// - topics.keywords: an account's own category's keyword lists per language (JSON), matched by the engine;
// - extraction_queue: one row per review whose title or text awaits reading, written in the review's
//   own transaction and claimed by the worker with a lease (nothing lost across a crash);
// - reviews.sentiment_computed: 1 when the engine set `sentiment` (a given one is never overwritten);
// - mentions.extracted: 1 for the engine's mentions, which a re-extraction replaces (an operator's stay);
// - recommendations.node_id / generated_key: the engine's recommendation for (account, node, topic),
//   updated in place; insight_runs: when the daily recommendation pass last ran, claimed by one worker.
// Existing reviews with text are queued, so an upgraded database gets its mentions too.
// Frozen: never edit, add a new migration instead.
import { type Kysely, sql } from 'kysely';

const CANONICAL: [string, string][] = [
  ['Cleanliness', '1bbf2f98-58eb-5d98-821f-a196ac215f97'],
  ['Staff', 'fb53d787-a288-5a53-aa47-72e9e88ed291'],
  ['Breakfast', '7ab99bce-a3f8-5b0f-a8ac-73e37f611956'],
  ['Food & drink', '7aa0649b-1851-5517-bcb4-5b5d1dc9f297'],
  ['Location', 'b09124e4-58f4-527d-ac4a-fb265e8673ef'],
  ['Room', '1a600cec-2443-5c6f-a4f3-7b684c5fdc46'],
  ['Bed', 'ff763a3c-819f-54d9-9b83-d7651ee0e73c'],
  ['Bathroom', '28f53ca8-7655-54a7-85b1-c87813c9a031'],
  ['Noise', '14d18ab7-e6d3-5f77-b066-cd3c8a57c878'],
  ['Value', 'fd5cfc63-8a6f-5694-a924-99ff5d4c4a0c'],
  ['Wi-Fi', '869b4eca-7b3b-549e-b8fc-6511f37df2ae'],
  ['Check-in', '83f65e4b-2e2b-5bee-8285-94a07f82b12c'],
  ['Parking', 'ae6d9550-470b-5d11-885c-788e128aa889'],
  ['Wellness', '65afc75c-f057-525f-809c-3c7e23672839'],
];

export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  for (const [name, id] of CANONICAL) {
    const existing = await db.selectFrom('topics').select('id').where('account_id', 'is', null).where('name', '=', name).executeTakeFirst();
    if (!existing) await db.insertInto('topics').values({ id, account_id: null, name, language: null, parent_label_id: null, created_at: now, import_key: null }).execute();
  }
  await db.schema.alterTable('topics').addColumn('keywords', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('sentiment_computed', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('mentions').addColumn('extracted', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('recommendations').addColumn('node_id', 'text').execute();
  await db.schema.alterTable('recommendations').addColumn('generated_key', 'text').execute();
  await db.schema.alterTable('recommendations').addColumn('updated_at', 'text').execute();
  await db.schema.createIndex('recommendations_generated_key').on('recommendations').column('generated_key').unique().execute();

  await db.schema.createTable('extraction_queue')
    .addColumn('review_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('enqueued_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('extraction_queue_due').on('extraction_queue').columns(['lease_until', 'enqueued_at']).execute();
  await db.schema.createTable('insight_runs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_run_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into extraction_queue (review_id, account_id, enqueued_at, attempts)
    select id, account_id, ${now}, 0 from reviews where title is not null or text is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('insight_runs').execute();
  await db.schema.dropTable('extraction_queue').execute();
  await db.schema.dropIndex('recommendations_generated_key').execute();
  for (const column of ['updated_at', 'generated_key', 'node_id']) await db.schema.alterTable('recommendations').dropColumn(column).execute();
  await db.schema.alterTable('mentions').dropColumn('extracted').execute();
  await db.schema.alterTable('reviews').dropColumn('sentiment_computed').execute();
  await db.schema.alterTable('topics').dropColumn('keywords').execute();
}
