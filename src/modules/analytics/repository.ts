// SQL of analytics: the review_stats aggregates of a subtree summed per platform (never a scan of reviews).
import { type Kysely, sql } from 'kysely';
import type { DB, ReviewStatsTable } from '../../db/schema.ts';
import type { SubtreeScope } from '../../db/subtree-page.ts';

/** One platform's row: every aggregate column of review_stats, summed over the subtree's nodes. */
export type PlatformSums = Omit<ReviewStatsTable, 'node_id'>;

const SUMS = ['reviews', 'rating_count', 'rating_sum', 'normalized_count', 'normalized_sum', 'recommend_count', 'recommend_yes', 'replied'] as const;

// Node lists are bound as parameters; this keeps one statement well under every driver's limit.
const NODE_CHUNK = 5000;

/** Per-platform sums of the subtree's aggregates, platforms in byte order. */
export async function sumStatsByPlatform(db: Kysely<DB>, scope: SubtreeScope): Promise<PlatformSums[]> {
  const select = (query: ReturnType<typeof base>) => query
    .select('review_stats.platform')
    .select(SUMS.map((c) => sql<number>`sum(${sql.ref(`review_stats.${c}`)})`.as(c)))
    .groupBy('review_stats.platform');
  const base = () => db.selectFrom('review_stats');

  const parts: PlatformSums[][] = [];
  if (scope.wholeAccount) {
    parts.push(await select(base().innerJoin('nodes', 'nodes.id', 'review_stats.node_id')
      .where('nodes.account_id', '=', scope.accountId)).execute());
  } else {
    for (let i = 0; i < scope.nodes.length; i += NODE_CHUNK) {
      parts.push(await select(base().where('review_stats.node_id', 'in', scope.nodes.slice(i, i + NODE_CHUNK))).execute());
    }
  }
  return merge(parts.flat());
}

// Adds up rows of the same platform (several node chunks) and reads numbers the drivers may give as text.
function merge(rows: PlatformSums[]): PlatformSums[] {
  const byPlatform = new Map<string, PlatformSums>();
  for (const row of rows) {
    const acc = byPlatform.get(row.platform) ?? { platform: row.platform, ...Object.fromEntries(SUMS.map((c) => [c, 0])) } as PlatformSums;
    for (const c of SUMS) acc[c] += Number(row[c] ?? 0);
    byPlatform.set(row.platform, acc);
  }
  return [...byPlatform.values()].sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
}
