// SQL of reviews: the subtree page query (shape chosen by subtree size), single reads and writes.
import { type CompiledQuery, type Insertable, type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import { compiledOnce } from '../../db/compiled-once.ts';
import { rowsOf } from '../../db/direct-statement.ts';
import type { Keyset } from '../../db/keyset.ts';
import type { AlertRuleTable, DB, NewReview, ReviewMonthlyStatsTable, ReviewRow, ReviewStatsTable, ReviewUpdate } from '../../db/schema.ts';
import { subtreePageQuery, type SubtreeScope, type SubtreeShape, whereNodeFilter } from '../../db/subtree-page.ts';
import type { EventRowWriter } from '../../events/outbox.ts';

const PUBLIC_COLUMNS = [
  'id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text', 'url', 'language',
  'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'node_id', 'is_hidden', 'created_at', 'updated_at',
] as const;
export type ReviewPublicRow = Pick<ReviewRow, (typeof PUBLIC_COLUMNS)[number]>;

/** One page of the subtree's reviews, newest first on (reviewed_at, id); limit + 1 rows. */
export async function listReviewPage(db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number): Promise<ReviewPublicRow[]> {
  return rowsOf(db, reviewPageQuery(db, scope, after, limit));
}

/** The compiled query of listReviewPage; `shape` forces a query shape (the benchmark runs and EXPLAINs each). */
export function reviewPageQuery(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, shape?: SubtreeShape,
): CompiledQuery<ReviewPublicRow> {
  return subtreePageQuery(db, scope, after, limit, 'reviewed_at',
    (filter) => whereNodeFilter(db.selectFrom('reviews').select(PUBLIC_COLUMNS), filter), shape, 'reviews');
}

/** The filters of a review list (already checked); `sync` switches to the oldest-change-first order. */
export interface ReviewFilters {
  platforms?: string[];
  ratingMin?: number;
  ratingMax?: number;
  language?: string;
  replied?: boolean;
  /** reviewed_at at or after (inclusive) / before (exclusive). */
  from?: string;
  to?: string;
  /** Ascending (updated_at, id) from this stamp (inclusive), below the horizon (exclusive) when there is one. */
  sync?: { since: string | null; horizon: string | null };
}

type ReviewSelect = SelectQueryBuilder<DB, 'reviews', ReviewPublicRow>;

function whereReviewFilters(query: ReviewSelect, f: ReviewFilters): ReviewSelect {
  let q = query;
  if (f.platforms !== undefined) q = f.platforms.length === 1 ? q.where('platform', '=', f.platforms[0]!) : q.where('platform', 'in', f.platforms);
  if (f.ratingMin !== undefined) q = q.where('rating', '>=', f.ratingMin);
  if (f.ratingMax !== undefined) q = q.where('rating', '<=', f.ratingMax);
  if (f.language !== undefined) q = q.where('language', '=', f.language);
  if (f.replied !== undefined) q = q.where('owner_reply', f.replied ? 'is not' : 'is', null);
  if (f.from !== undefined) q = q.where('reviewed_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('reviewed_at', '<', f.to);
  if (f.sync?.since != null) q = q.where('updated_at', '>=', f.sync.since);
  if (f.sync?.horizon != null) q = q.where('updated_at', '<', f.sync.horizon);
  return q;
}

/** A filtered (or sync-ordered) page of the subtree's reviews; limit + 1 rows. */
export async function listFilteredReviewPage(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, filters: ReviewFilters,
): Promise<ReviewPublicRow[]> {
  return rowsOf(db, filteredReviewPageQuery(db, scope, after, limit, filters));
}

/** The compiled query of listFilteredReviewPage (built per call: the filters are its values). */
export function filteredReviewPageQuery(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, filters: ReviewFilters, shape?: SubtreeShape,
): CompiledQuery<ReviewPublicRow> {
  const sync = filters.sync !== undefined;
  return subtreePageQuery(db, scope, after, limit, sync ? 'updated_at' : 'reviewed_at',
    (filter) => whereReviewFilters(whereNodeFilter(db.selectFrom('reviews').select(PUBLIC_COLUMNS), filter), filters),
    shape, undefined, sync ? 'asc' : 'desc');
}

// lock: a write reads the row it will change under FOR UPDATE on PostgreSQL, so two concurrent
// writes cannot both take the same old version out of review_stats (SQLite runs one writer at a time).
const locked = <Q extends { forUpdate(): Q }>(db: Kysely<DB>, q: Q, lock: boolean): Q =>
  lock && isPostgres(db) ? q.forUpdate() : q;

export async function findReview(db: Kysely<DB>, id: string, lock = false): Promise<ReviewRow | undefined> {
  return locked(db, db.selectFrom('reviews').selectAll().where('id', '=', id), lock).executeTakeFirst();
}

export async function findReviewByIdentity(db: Kysely<DB>, accountId: string, platform: string, externalId: string, lock = false): Promise<ReviewRow | undefined> {
  return locked(db, db.selectFrom('reviews').selectAll()
    .where('account_id', '=', accountId).where('platform', '=', platform).where('external_id', '=', externalId), lock)
    .executeTakeFirst();
}

/**
 * Tables that copy a review's node so their subtree lists need no join (mentions) follow the review when
 * it moves to another node, in the transaction that moves it.
 */
export async function moveNodeCopies(db: Kysely<DB>, reviewId: string, nodeId: string): Promise<void> {
  await db.updateTable('mentions').set({ node_id: nodeId }).where('review_id', '=', reviewId).execute();
}

/** A review of the account to queue for the insights engine. */
export interface QueuedReview {
  id: string;
  /** Created by this write: no queue row can exist for it yet, so a plain insert will do. */
  created: boolean;
}

/** Writes queue rows for the insights engine in the caller's transaction (queueExtraction, or a store's faster one). */
export type QueueRowWriter = (db: Kysely<DB>, accountId: string, reviews: readonly QueuedReview[], now: string) => Promise<void>;

// One review's queue row (every single review write): built once, then only bound.
const queueOne = compiledOnce((db, reviewId: string, accountId: string, now: string) => db.insertInto('extraction_queue')
  .values({ review_id: reviewId, account_id: accountId, enqueued_at: now, lease_until: null, attempts: 0 })
  .onConflict((oc) => oc.column('review_id').doUpdateSet({ enqueued_at: now, lease_until: null, attempts: 0 })));

/**
 * Queues reviews for the insights engine, in the transaction that wrote them: the worker claims the
 * rows, reads the reviews and replaces their mentions. A review queued again (its text changed while
 * it waited or was being read) gets a fresh enqueued_at, so the worker reads it once more.
 */
export const queueExtraction: QueueRowWriter = async (db, accountId, reviews, now) => {
  // Single writes queue one review; imports queue their batches through their store's own writer.
  for (const r of reviews) await queueOne(db, r.id, accountId, now);
};

export async function insertReview(db: Kysely<DB>, row: NewReview): Promise<void> {
  await db.insertInto('reviews').values(row).execute();
}

export async function updateReview(db: Kysely<DB>, id: string, changes: ReviewUpdate): Promise<void> {
  await db.updateTable('reviews').set(changes).where('id', '=', id).execute();
}

/** What one review adds to its (node, platform) aggregate; hidden reviews add nothing. */
export type StatsDelta = Omit<ReviewStatsTable, 'node_id' | 'platform'>;

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

/** The month (YYYY-MM, UTC) a review counts in: the month of its reviewed_at. */
export const monthOf = (row: Pick<ReviewRow, 'reviewed_at'>): string => row.reviewed_at.slice(0, 7);

/** What one review adds to its month's aggregate: its StatsDelta, its star and the time its reply took. */
export type MonthlyDelta = Omit<ReviewMonthlyStatsTable, 'node_id' | 'platform' | 'month'>;

/** The star a rating counts under: rounded half up (4.5 → 5); 0 counts under none. */
const starOf = (rating: number | null): number | null => (rating === null ? null : Math.round(rating));

export function monthlyContribution(
  row: Pick<ReviewRow, 'is_hidden' | 'rating' | 'rating_normalized' | 'recommend' | 'owner_reply' | 'replied_at' | 'reviewed_at'>, sign: 1 | -1,
): MonthlyDelta {
  const star = row.is_hidden ? null : starOf(row.rating);
  const timed = !row.is_hidden && row.replied_at !== null;
  return {
    ...contribution(row, sign),
    stars_1: star === 1 ? sign : 0, stars_2: star === 2 ? sign : 0, stars_3: star === 3 ? sign : 0, stars_4: star === 4 ? sign : 0, stars_5: star === 5 ? sign : 0,
    reply_timed: timed ? sign : 0,
    reply_seconds: timed ? (sign * (Date.parse(row.replied_at!) - Date.parse(row.reviewed_at))) / 1000 : 0,
  };
}

/** One review's contribution to its (node, platform) aggregate and to its month's. */
export type KeyedDelta = MonthlyDelta & { node_id: string; platform: string; month: string };

export async function applyStats(db: Kysely<DB>, row: Pick<ReviewRow, 'node_id' | 'platform' | 'reviewed_at'>, d: MonthlyDelta): Promise<void> {
  await applyStatsMany(db, [{ node_id: row.node_id, platform: row.platform, month: monthOf(row), ...d }]);
}

const addInto = <D extends StatsDelta>(sums: Map<string, D>, key: string, fields: ReadonlyArray<keyof D>, d: D) => {
  const sum = sums.get(key);
  if (!sum) {
    sums.set(key, d);
    return;
  }
  for (const f of fields) (sum[f] as number) += d[f] as number;
};

const ADD_UP = (table: 'review_stats' | 'review_monthly_stats', fields: readonly string[]) => Object.fromEntries(
  fields.map((f) => [f, sql`${sql.ref(`${table}.${f}`)} + ${sql.ref(`excluded.${f}`)}`]),
);

/**
 * Adds deltas to review_stats (per node and platform) and review_monthly_stats (per node, platform
 * and month) in the caller's transaction, one statement per chunk of each.
 */
export async function applyStatsMany(db: Kysely<DB>, deltas: readonly KeyedDelta[]): Promise<void> {
  const totals = new Map<string, StatsDelta & { node_id: string; platform: string }>();
  const months = new Map<string, KeyedDelta>();
  for (const d of deltas) {
    if (!MONTHLY_FIELDS.some((f) => d[f] !== 0)) continue;
    const total = { node_id: d.node_id, platform: d.platform } as StatsDelta & { node_id: string; platform: string };
    for (const f of STATS_FIELDS) total[f] = d[f];
    addInto(totals, `${d.node_id}\u0000${d.platform}`, STATS_FIELDS, total);
    addInto(months, `${d.node_id}\u0000${d.platform}\u0000${d.month}`, MONTHLY_FIELDS, { ...d });
  }
  const rows = [...totals.values()];
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('review_stats').values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['node_id', 'platform']).doUpdateSet(ADD_UP('review_stats', STATS_FIELDS))).execute();
  }
  const monthly = [...months.values()];
  for (let i = 0; i < monthly.length; i += 500) {
    await db.insertInto('review_monthly_stats').values(monthly.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['node_id', 'month', 'platform']).doUpdateSet(ADD_UP('review_monthly_stats', MONTHLY_FIELDS))).execute();
  }
}

/** Recomputes an account's monthly aggregates from its visible reviews (data written around the writes above: benchmarks' seeds). */
export async function rebuildMonthlyStats(db: Kysely<DB>, accountId: string): Promise<void> {
  const pg = isPostgres(db);
  // As monthlyContribution counts: stars rounded half up (ratings are 0 to 5: truncation is floor on SQLite), reply time in seconds.
  const rounded = pg ? sql`floor(rating + 0.5)` : sql`cast(rating + 0.5 as integer)`;
  const star = (n: number) => sql`coalesce(sum(case when ${rounded} = ${sql.lit(n)} then 1 else 0 end), 0)`;
  const seconds = pg
    ? sql`extract(epoch from (replied_at::timestamptz - reviewed_at::timestamptz))`
    : sql`(julianday(replied_at) - julianday(reviewed_at)) * 86400`;
  await db.deleteFrom('review_monthly_stats').where('node_id', 'in', db.selectFrom('nodes').select('id').where('account_id', '=', accountId)).execute();
  await sql`insert into review_monthly_stats (node_id, platform, month, reviews, rating_count, rating_sum, normalized_count, normalized_sum,
      recommend_count, recommend_yes, replied, stars_1, stars_2, stars_3, stars_4, stars_5, reply_timed, reply_seconds)
    select node_id, platform, substr(reviewed_at, 1, 7), count(*), count(rating), coalesce(sum(rating), 0), count(rating_normalized),
      coalesce(sum(rating_normalized), 0), count(recommend), coalesce(sum(case when recommend = 1 then 1 else 0 end), 0), count(owner_reply),
      ${star(1)}, ${star(2)}, ${star(3)}, ${star(4)}, ${star(5)}, count(replied_at), coalesce(sum(case when replied_at is not null then ${seconds} end), 0)
    from reviews where account_id = ${accountId} and is_hidden = 0 group by node_id, platform, substr(reviewed_at, 1, 7)`.execute(db);
}

const STATS_FIELDS = [
  'reviews', 'rating_count', 'rating_sum', 'normalized_count', 'normalized_sum', 'recommend_count', 'recommend_yes', 'replied',
] as const satisfies ReadonlyArray<keyof StatsDelta>;
const MONTHLY_FIELDS = [
  ...STATS_FIELDS, 'stars_1', 'stars_2', 'stars_3', 'stars_4', 'stars_5', 'reply_timed', 'reply_seconds',
] as const satisfies ReadonlyArray<keyof MonthlyDelta>;

export async function insertAlertRule(db: Kysely<DB>, row: Insertable<AlertRuleTable>): Promise<void> {
  await db.insertInto('alert_rules').values(row).execute();
}

/** The account's alert rules, or only those of the given nodes. */
export async function listAlertRules(db: Kysely<DB>, accountId: string, nodeIds?: string[]): Promise<Selectable<AlertRuleTable>[]> {
  const query = db.selectFrom('alert_rules').selectAll().where('account_id', '=', accountId);
  return (nodeIds === undefined ? query : query.where('node_id', 'in', nodeIds)).execute();
}

// ---- bulk writes (imports, demo): the statements differ per database (store-sqlite.ts, store-postgres.ts)

export const REVIEW_COLUMNS = [
  'id', 'account_id', 'node_id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text',
  'url', 'language', 'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'is_hidden', 'recommend', 'created_at', 'updated_at',
  'sentiment_computed',
] as const satisfies ReadonlyArray<keyof ReviewRow>;
/** What an update in place replaces. */
export const REVIEW_FIELD_COLUMNS = REVIEW_COLUMNS.filter((c) => !['id', 'account_id', 'platform', 'external_id', 'created_at'].includes(c));

/** A review of a batch as planned: its input's position and the row a create would insert. */
export interface Planned {
  index: number;
  row: ReviewRow;
}

export interface Written {
  index: number;
  /** The row as stored (an update keeps the stored id and created_at). */
  row: ReviewRow;
  /** The row before this write, when it already existed. */
  old: ReviewRow | null;
}

export interface ReviewBulkStore {
  /** Creates or updates in place by (account, platform, external_id) a run of reviews (no key twice), in the caller's transaction. */
  writeRun(trx: Kysely<DB>, accountId: string, run: readonly Planned[]): Promise<Written[]>;
  /** How this database writes a batch's event rows fastest. */
  eventRows: EventRowWriter;
  /** How this database queues a batch's reviews for the insights engine fastest. */
  queueRows: QueueRowWriter;
}
