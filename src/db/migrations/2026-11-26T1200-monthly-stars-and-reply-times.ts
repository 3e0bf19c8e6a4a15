// review_monthly_stats also counts each month's reviews by star (the rating rounded half up, 1 to 5)
// and sums the time to answer of its replied reviews, so the dashboard's rating distribution and
// response time read a few rows per node and month instead of every review of the last months.
// Backfilled from the visible reviews.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const real = pg ? sql`double precision` : sql`real`;
  for (const column of ['stars_1', 'stars_2', 'stars_3', 'stars_4', 'stars_5', 'reply_timed']) {
    await db.schema.alterTable('review_monthly_stats').addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema.alterTable('review_monthly_stats').addColumn('reply_seconds', real, (c) => c.notNull().defaultTo(0)).execute();
  const seconds = pg
    ? sql`extract(epoch from (replied_at::timestamptz - reviewed_at::timestamptz))`
    : sql`(julianday(replied_at) - julianday(reviewed_at)) * 86400`;
  // Rounded half up as the writes round (Math.round); ratings are 0 to 5, so truncation is floor on SQLite.
  const rounded = pg ? sql`floor(rating + 0.5)` : sql`cast(rating + 0.5 as integer)`;
  const star = (n: number) => sql`coalesce(sum(case when ${rounded} = ${sql.lit(n)} then 1 else 0 end), 0)`;
  await sql`update review_monthly_stats set stars_1 = s.stars_1, stars_2 = s.stars_2, stars_3 = s.stars_3, stars_4 = s.stars_4,
      stars_5 = s.stars_5, reply_timed = s.reply_timed, reply_seconds = s.reply_seconds
    from (select node_id, platform, substr(reviewed_at, 1, 7) as month, ${star(1)} as stars_1, ${star(2)} as stars_2, ${star(3)} as stars_3,
        ${star(4)} as stars_4, ${star(5)} as stars_5, count(replied_at) as reply_timed,
        coalesce(sum(case when replied_at is not null then ${seconds} end), 0) as reply_seconds
      from reviews where is_hidden = 0 group by node_id, platform, substr(reviewed_at, 1, 7)) as s
    where review_monthly_stats.node_id = s.node_id and review_monthly_stats.platform = s.platform and review_monthly_stats.month = s.month`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['stars_1', 'stars_2', 'stars_3', 'stars_4', 'stars_5', 'reply_timed', 'reply_seconds']) {
    await db.schema.alterTable('review_monthly_stats').dropColumn(column).execute();
  }
}
