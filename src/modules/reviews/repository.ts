// SQL of reviews: the subtree page query (shape chosen by subtree size), single reads and writes.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB, NewReview, ReviewRow, ReviewUpdate } from '../../db/schema.ts';
import type { Keyset } from '../../http/pagination.ts';

const PUBLIC_COLUMNS = [
  'id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text', 'url', 'language',
  'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'node_id', 'is_hidden',
] as const;
export type ReviewPublicRow = Pick<ReviewRow, (typeof PUBLIC_COLUMNS)[number]>;

/** Where the subtree has at most this many nodes, the page is a UNION ALL of per-node index seeks. */
const PER_NODE_UNION_MAX = 64;

export interface SubtreeScope {
  accountId: string;
  /** Node ids of the subtree. */
  nodes: string[];
  /** True when the subtree is the whole account (the key is bound to the root). */
  wholeAccount: boolean;
}

/**
 * One page, newest first on (reviewed_at, id), limit + 1 rows. Every shape reads O(limit) index
 * entries per node whatever the page depth: keyset, never OFFSET.
 */
export async function listReviewPage(db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number): Promise<ReviewPublicRow[]> {
  const page = <Q extends SelectQueryBuilder<DB, 'reviews', ReviewPublicRow>>(q: Q) => {
    let query = q;
    if (after) query = query.where((eb) => eb(eb.refTuple('reviewed_at', 'id'), '<', eb.tuple(after.time, after.id))) as Q;
    return query.orderBy('reviewed_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  };
  const base = () => db.selectFrom('reviews').select(PUBLIC_COLUMNS);

  if (scope.wholeAccount || scope.nodes.length > PER_NODE_UNION_MAX) {
    let query = base().where('account_id', '=', scope.accountId);
    if (!scope.wholeAccount) query = query.where('node_id', 'in', scope.nodes);
    return page(query).execute();
  }
  if (scope.nodes.length === 1) return page(base().where('node_id', '=', scope.nodes[0]!)).execute();

  const [first, ...rest] = scope.nodes.map((nodeId) =>
    db.selectFrom(page(base().where('node_id', '=', nodeId)).as('n')).selectAll());
  let union = first!;
  for (const part of rest) union = union.unionAll(part);
  return union.orderBy('reviewed_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

export async function findReview(db: Kysely<DB>, id: string): Promise<ReviewRow | undefined> {
  return db.selectFrom('reviews').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findReviewByIdentity(db: Kysely<DB>, accountId: string, platform: string, externalId: string): Promise<ReviewRow | undefined> {
  return db.selectFrom('reviews').selectAll()
    .where('account_id', '=', accountId).where('platform', '=', platform).where('external_id', '=', externalId)
    .executeTakeFirst();
}

export async function insertReview(db: Kysely<DB>, row: NewReview): Promise<void> {
  await db.insertInto('reviews').values(row).execute();
}

export async function updateReview(db: Kysely<DB>, id: string, changes: ReviewUpdate): Promise<void> {
  await db.updateTable('reviews').set(changes).where('id', '=', id).execute();
}

/** What one review adds to its (node, platform) aggregate; hidden reviews add nothing. */
export interface StatsDelta {
  reviews: number;
  rating_count: number;
  rating_sum: number;
  normalized_count: number;
  normalized_sum: number;
  recommend_count: number;
  recommend_yes: number;
  replied: number;
}

export function contribution(row: Pick<ReviewRow, 'is_hidden' | 'rating' | 'rating_normalized' | 'recommend' | 'owner_reply'>, sign: 1 | -1): StatsDelta {
  if (row.is_hidden) {
    return { reviews: 0, rating_count: 0, rating_sum: 0, normalized_count: 0, normalized_sum: 0, recommend_count: 0, recommend_yes: 0, replied: 0 };
  }
  return {
    reviews: sign,
    rating_count: row.rating === null ? 0 : sign,
    rating_sum: sign * (row.rating ?? 0),
    normalized_count: row.rating_normalized === null ? 0 : sign,
    normalized_sum: sign * (row.rating_normalized ?? 0),
    recommend_count: row.recommend === null ? 0 : sign,
    recommend_yes: row.recommend === 1 ? sign : 0,
    replied: row.owner_reply === null ? 0 : sign,
  };
}

export async function applyStats(db: Kysely<DB>, nodeId: string, platform: string, d: StatsDelta): Promise<void> {
  if (Object.values(d).every((v) => v === 0)) return;
  await db.insertInto('review_stats').values({ node_id: nodeId, platform, ...d })
    .onConflict((oc) => oc.columns(['node_id', 'platform']).doUpdateSet({
      reviews: sql`review_stats.reviews + excluded.reviews`,
      rating_count: sql`review_stats.rating_count + excluded.rating_count`,
      rating_sum: sql`review_stats.rating_sum + excluded.rating_sum`,
      normalized_count: sql`review_stats.normalized_count + excluded.normalized_count`,
      normalized_sum: sql`review_stats.normalized_sum + excluded.normalized_sum`,
      recommend_count: sql`review_stats.recommend_count + excluded.recommend_count`,
      recommend_yes: sql`review_stats.recommend_yes + excluded.recommend_yes`,
      replied: sql`review_stats.replied + excluded.replied`,
    }))
    .execute();
}
