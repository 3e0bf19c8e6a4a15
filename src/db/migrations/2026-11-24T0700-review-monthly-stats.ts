// review_monthly_stats: the review_stats aggregates per calendar month of reviewed_at (UTC), kept
// by the same writes in the same transactions, so month-by-month figures (the dashboard's trend and
// overview) read a few rows per node and month instead of every review of the year. Backfilled from
// the visible reviews.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const str = pg ? sql`text collate "C"` : sql`text`;
  const real = pg ? sql`double precision` : sql`real`;
  await db.schema.createTable('review_monthly_stats')
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('platform', str, (c) => c.notNull())
    .addColumn('month', str, (c) => c.notNull())
    .addColumn('reviews', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', real, (c) => c.notNull().defaultTo(0))
    .addColumn('normalized_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('normalized_sum', real, (c) => c.notNull().defaultTo(0))
    .addColumn('recommend_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recommend_yes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replied', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('review_monthly_stats_pk', ['node_id', 'month', 'platform'])
    .execute();
  await sql`insert into review_monthly_stats (node_id, platform, month, reviews, rating_count, rating_sum, normalized_count, normalized_sum,
      recommend_count, recommend_yes, replied)
    select node_id, platform, substr(reviewed_at, 1, 7), count(*), count(rating), coalesce(sum(rating), 0), count(rating_normalized),
      coalesce(sum(rating_normalized), 0), count(recommend), coalesce(sum(case when recommend = 1 then 1 else 0 end), 0), count(owner_reply)
    from reviews where is_hidden = 0 group by node_id, platform, substr(reviewed_at, 1, 7)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_monthly_stats').execute();
}
