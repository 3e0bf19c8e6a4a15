// SQL of analytics: the review_stats aggregates of a subtree summed per platform (never a scan of reviews).
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import type { DB, ReviewStatsTable } from '../../db/schema.ts';
import { rowsOf } from '../../db/direct-statement.ts';
import type { SubtreeScope } from '../../db/subtree-page.ts';

/** One platform's row: every aggregate column of review_stats, summed over the subtree's nodes. */
export type PlatformSums = Omit<ReviewStatsTable, 'node_id'>;

const SUMS = ['reviews', 'rating_count', 'rating_sum', 'normalized_count', 'normalized_sum', 'recommend_count', 'recommend_yes', 'replied'] as const;

// Node lists are bound as parameters; this keeps one statement well under every driver's limit.
const NODE_CHUNK = 5000;

const SUMS_SQL = SUMS.map((c) => `sum(rs.${c}) as ${c}`).join(', ');

/** The statement texts of sumStatsByPlatform, by dialect and node count: made once, not per request. */
const statsTexts = new Map<string, string>();

function statsText(pg: boolean, nodes: number | 'account'): string {
  const key = `${pg}|${nodes}`;
  let text = statsTexts.get(key);
  if (text === undefined) {
    const slots = (n: number) => Array.from({ length: n }, (_, i) => (pg ? `$${i + 1}` : '?')).join(', ');
    text = nodes === 'account'
      ? `select rs.platform, ${SUMS_SQL} from review_stats rs inner join nodes n on n.id = rs.node_id where n.account_id = ${slots(1)} group by rs.platform`
      : `select rs.platform, ${SUMS_SQL} from review_stats rs where rs.node_id in (${slots(nodes)}) group by rs.platform`;
    // Bounded like the named statements that take these texts (src/db/pg-named-statements.ts).
    if (statsTexts.size < 2000) statsTexts.set(key, text);
  }
  return text;
}

/**
 * Per-platform sums of the subtree's aggregates, platforms in byte order. The SQL is written out,
 * not built, and kept per node count: it runs on every GET /analytics/scores, and building it cost
 * more than running it.
 */
export async function sumStatsByPlatform(db: Kysely<DB>, scope: SubtreeScope): Promise<PlatformSums[]> {
  const pg = isPostgres(db);
  if (scope.wholeAccount) return merge(await rowsOf(db, CompiledQuery.raw(statsText(pg, 'account'), [scope.accountId]) as CompiledQuery<PlatformSums>));
  const rows: PlatformSums[] = [];
  for (let i = 0; i < scope.nodes.length; i += NODE_CHUNK) {
    const nodes = scope.nodes.slice(i, i + NODE_CHUNK);
    rows.push(...(await rowsOf(db, CompiledQuery.raw(statsText(pg, nodes.length), nodes) as CompiledQuery<PlatformSums>)));
  }
  return merge(rows);
}

/**
 * The same sums read from the reviews of a time range (review_stats has no time): a range on the
 * (account_id | node_id, reviewed_at) index, visible reviews only, optionally some platforms.
 */
export async function sumReviewsByPlatform(
  db: Kysely<DB>, scope: SubtreeScope, range: { from?: string; to?: string; platforms?: readonly string[] },
): Promise<PlatformSums[]> {
  const pg = isPostgres(db);
  const yes = pg ? sql`case when recommend = 1 then 1 else 0 end` : sql`recommend = 1`;
  const select = (where: ReturnType<typeof sql>) => sql<PlatformSums>`
    select platform, count(*) as reviews, count(rating) as rating_count, coalesce(sum(rating), 0) as rating_sum,
      count(rating_normalized) as normalized_count, coalesce(sum(rating_normalized), 0) as normalized_sum,
      count(recommend) as recommend_count, coalesce(sum(${yes}), 0) as recommend_yes, count(owner_reply) as replied
    from reviews where ${where} and is_hidden = 0
      ${range.from !== undefined ? sql`and reviewed_at >= ${range.from}` : sql``}
      ${range.to !== undefined ? sql`and reviewed_at < ${range.to}` : sql``}
      ${range.platforms !== undefined ? sql`and platform in (${sql.join(range.platforms)})` : sql``}
    group by platform`;
  const parts: PlatformSums[][] = [];
  if (scope.wholeAccount) {
    parts.push((await select(sql`account_id = ${scope.accountId}`).execute(db)).rows);
  } else {
    for (let i = 0; i < scope.nodes.length; i += NODE_CHUNK) {
      parts.push((await select(sql`node_id in (${sql.join(scope.nodes.slice(i, i + NODE_CHUNK))})`).execute(db)).rows);
    }
  }
  return merge(parts.flat());
}

// Adds up rows of the same platform (several node chunks) and reads numbers the drivers may give as
// text. Written out column by column: it runs on every GET /analytics/scores.
function merge(rows: readonly PlatformSums[]): PlatformSums[] {
  const byPlatform = new Map<string, PlatformSums>();
  for (const row of rows) {
    const acc = byPlatform.get(row.platform);
    if (acc === undefined) {
      byPlatform.set(row.platform, {
        platform: row.platform, reviews: Number(row.reviews ?? 0), rating_count: Number(row.rating_count ?? 0),
        rating_sum: Number(row.rating_sum ?? 0), normalized_count: Number(row.normalized_count ?? 0),
        normalized_sum: Number(row.normalized_sum ?? 0), recommend_count: Number(row.recommend_count ?? 0),
        recommend_yes: Number(row.recommend_yes ?? 0), replied: Number(row.replied ?? 0),
      });
      continue;
    }
    acc.reviews += Number(row.reviews ?? 0);
    acc.rating_count += Number(row.rating_count ?? 0);
    acc.rating_sum += Number(row.rating_sum ?? 0);
    acc.normalized_count += Number(row.normalized_count ?? 0);
    acc.normalized_sum += Number(row.normalized_sum ?? 0);
    acc.recommend_count += Number(row.recommend_count ?? 0);
    acc.recommend_yes += Number(row.recommend_yes ?? 0);
    acc.replied += Number(row.replied ?? 0);
  }
  return [...byPlatform.values()].sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
}

/** Per-node sums of the aggregates (for the comparison of properties). */
export async function sumStatsByNode(db: Kysely<DB>, nodeIds: readonly string[]): Promise<Array<{ node_id: string; reviews: number; rating_sum: number; rating_count: number; replied: number }>> {
  if (nodeIds.length === 0) return [];
  const rows = await db.selectFrom('review_stats').select('node_id')
    .select(['reviews', 'rating_sum', 'rating_count', 'replied'].map((c) => sql<number>`sum(${sql.ref(c)})`.as(c)))
    .where('node_id', 'in', nodeIds).groupBy('node_id').execute();
  return rows.map((r) => ({ node_id: r.node_id, reviews: Number(r.reviews), rating_sum: Number(r.rating_sum), rating_count: Number(r.rating_count), replied: Number(r.replied) }));
}

export interface MonthlyScore { month: string; platform: string; reviews: number; rating_sum: number; rating_count: number }

/** Visible reviews per month and platform from the month of `from` on, from review_monthly_stats (a few rows per node and month). */
export async function monthlyScores(db: Kysely<DB>, nodeIds: readonly string[], from: string): Promise<MonthlyScore[]> {
  if (nodeIds.length === 0) return [];
  const parts: MonthlyScore[] = [];
  for (let i = 0; i < nodeIds.length; i += NODE_CHUNK) {
    const rows = await db.selectFrom('review_monthly_stats')
      .select(['month', 'platform', (eb) => eb.fn.sum<number>('reviews').as('reviews'), (eb) => eb.fn.sum<number>('rating_sum').as('rating_sum'),
        (eb) => eb.fn.sum<number>('rating_count').as('rating_count')])
      .where('node_id', 'in', nodeIds.slice(i, i + NODE_CHUNK)).where('month', '>=', from.slice(0, 7))
      .groupBy(['month', 'platform']).execute();
    parts.push(...rows.map((r) => ({ month: r.month, platform: r.platform, reviews: Number(r.reviews), rating_sum: Number(r.rating_sum), rating_count: Number(r.rating_count) })));
  }
  const merged = new Map<string, MonthlyScore>();
  for (const p of parts) {
    const key = `${p.month}|${p.platform}`;
    const m = merged.get(key);
    if (m) {
      m.reviews += p.reviews;
      m.rating_sum += p.rating_sum;
      m.rating_count += p.rating_count;
    } else merged.set(key, { ...p });
  }
  // Months whose reviews are all hidden keep rows of zeros: not shown.
  return [...merged.values()].filter((m) => m.reviews > 0).sort((a, b) => (a.month === b.month ? (a.platform < b.platform ? -1 : 1) : a.month < b.month ? -1 : 1));
}

export interface RecentMonths { stars: number[]; reviews: number; replied: number; reply_timed: number; reply_seconds: number }

/**
 * Visible reviews from the month of `from` on, from review_monthly_stats: by star (index 0 → 1 star),
 * how many, how many replied, and the summed time to answer of those with a replied_at.
 */
export async function recentMonths(db: Kysely<DB>, nodeIds: readonly string[], from: string): Promise<RecentMonths> {
  const total: RecentMonths = { stars: [0, 0, 0, 0, 0], reviews: 0, replied: 0, reply_timed: 0, reply_seconds: 0 };
  const columns = ['stars_1', 'stars_2', 'stars_3', 'stars_4', 'stars_5', 'reviews', 'replied', 'reply_timed', 'reply_seconds'] as const;
  for (let i = 0; i < nodeIds.length; i += NODE_CHUNK) {
    const row = await db.selectFrom('review_monthly_stats')
      .select(columns.map((c) => sql<number | null>`sum(${sql.ref(c)})`.as(c)))
      .where('node_id', 'in', nodeIds.slice(i, i + NODE_CHUNK)).where('month', '>=', from.slice(0, 7))
      .executeTakeFirst() as Record<(typeof columns)[number], number | null> | undefined;
    if (!row) continue;
    [row.stars_1, row.stars_2, row.stars_3, row.stars_4, row.stars_5].forEach((n, star) => {
      total.stars[star]! += Number(n ?? 0);
    });
    total.reviews += Number(row.reviews ?? 0);
    total.replied += Number(row.replied ?? 0);
    total.reply_timed += Number(row.reply_timed ?? 0);
    total.reply_seconds += Number(row.reply_seconds ?? 0);
  }
  return total;
}
