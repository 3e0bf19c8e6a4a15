// Review rules: subtree reads, the operator's upsert (with review.received and alerts), reply and hide.
// Every write keeps review_stats current in the same transaction.
import type { Kysely } from 'kysely';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Keyset } from '../../db/keyset.ts';
import { inTransaction, wakeAfterCommit } from '../../db/transaction.ts';
import type { DB, ReviewRow } from '../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import { hasFilters, type PageOf, toPage } from '../../http/pagination.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { bit } from '../../db/columns.ts';
import { changeStamp, syncHorizon } from '../../db/change-stamp.ts';
import { toIso, toIsoOrNull } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import { narrowedScope, requireAccountNode } from '../nodes/service.ts';
import { matchingRules } from './alerts.ts';
import { timeRange } from '../../http/time-range.ts';
import * as repo from './repository.ts';
import type { Review, ReviewInput, ReviewListQuery } from './schemas.ts';

export function toReview(row: repo.ReviewPublicRow): Review {
  return {
    id: row.id, platform: row.platform, external_id: row.external_id, author: row.author,
    rating: row.rating, rating_normalized: row.rating_normalized, title: row.title, text: row.text,
    url: row.url, language: row.language, sentiment: row.sentiment, owner_reply: row.owner_reply,
    replied_at: row.replied_at, reviewed_at: row.reviewed_at, node_id: row.node_id, is_hidden: row.is_hidden !== 0,
    created_at: row.created_at, updated_at: row.updated_at,
  };
}

const byReviewedAt = (r: repo.ReviewPublicRow) => ({ time: r.reviewed_at, id: r.id });
const byUpdatedAt = (r: repo.ReviewPublicRow) => ({ time: r.updated_at, id: r.id });

/** A page of the key's reviews: newest first, or filtered, or oldest change first (sync); see ReviewListQuery. */
export async function listReviews(
  db: Kysely<DB>, principal: Principal, after: Keyset | null, limit: number, query: ReviewListQuery = {},
): Promise<PageOf<Review>> {
  if (!hasFilters(query)) return toPage(await repo.listReviewPage(db, subtreeScope(principal), after, limit), limit, byReviewedAt, toReview);
  const filters = reviewFilters(query);
  const scope = query.node_id === undefined ? subtreeScope(principal) : await narrowedScope(db, principal, query.node_id);
  if (filters.sync) filters.sync.horizon = await syncHorizon(db);
  const rows = await repo.listFilteredReviewPage(db, scope, after, limit, filters);
  return toPage(rows, limit, filters.sync ? byUpdatedAt : byReviewedAt, toReview);
}

/** The checked filters of a review list, or 400 naming the parameter and its rule. */
export function reviewFilters(q: ReviewListQuery): repo.ReviewFilters {
  if (q.rating_min !== undefined && q.rating_max !== undefined && q.rating_min > q.rating_max) {
    throw invalid('querystring.rating_min must be at most rating_max');
  }
  const [from, to] = timeRange(q);
  const sync = q.sort === 'updated_at';
  if (q.updated_since !== undefined && !sync) throw invalid('querystring.updated_since needs sort=updated_at');
  return {
    ...(q.platform !== undefined ? { platforms: [...new Set(q.platform)] } : {}),
    ...(q.rating_min !== undefined ? { ratingMin: q.rating_min } : {}),
    ...(q.rating_max !== undefined ? { ratingMax: q.rating_max } : {}),
    ...(q.language !== undefined ? { language: q.language } : {}),
    ...(q.replied !== undefined ? { replied: q.replied } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(sync ? { sync: { since: q.updated_since === undefined ? null : toIso(q.updated_since), horizon: null } } : {}),
  };
}

/** A review the principal may read, or 404 (unknown, malformed id, other account or outside the subtree). */
export async function getReview(db: Kysely<DB>, principal: Principal, id: string): Promise<Review> {
  const row = await lookup(id, (uuid) => repo.findReview(db, uuid));
  if (!row || row.account_id !== principal.accountId || !principal.inSubtree(row.node_id)) throw notFound('review');
  return toReview(row);
}

/** A review by id (optionally locked for a write in this transaction), or not found. */
export async function requireReview(db: Kysely<DB>, id: string, lock = false): Promise<ReviewRow> {
  const row = await lookup(id, (uuid) => repo.findReview(db, uuid, lock));
  if (!row) throw notFound('review');
  return row;
}

/** The account's review named by id or by its (platform, external_id) identity; undefined when it has none such. */
export async function findAccountReview(
  db: Kysely<DB>, accountId: string, key: { id: string } | { platform: string; external_id: string },
): Promise<ReviewRow | undefined> {
  const row = 'id' in key ? await lookup(key.id, (uuid) => repo.findReview(db, uuid))
    : await repo.findReviewByIdentity(db, accountId, key.platform, key.external_id);
  return row?.account_id === accountId ? row : undefined;
}

export interface UpsertResult {
  review: Review;
  created: boolean;
}

/** The columns an upsert writes besides the identity, from the admin body (shared with the bulk import). */
export function reviewFields(input: ReviewInput, nodeId: string, now: string) {
  const rating = input.rating ?? null;
  return {
    node_id: nodeId,
    author: input.author ?? null,
    rating,
    rating_normalized: input.rating_normalized ?? (rating === null ? null : rating * 20),
    title: input.title ?? null,
    text: input.text ?? null,
    url: input.url ?? null,
    language: input.language ?? null,
    sentiment: input.sentiment ?? null,
    owner_reply: input.owner_reply ?? null,
    replied_at: toIsoOrNull(input.replied_at) ?? (input.owner_reply ? now : null),
    reviewed_at: toIso(input.reviewed_at),
    is_hidden: bit(input.is_hidden ?? false),
    recommend: input.recommend == null ? null : bit(input.recommend),
    updated_at: now,
    // A write states the sentiment (or its absence); the insights engine fills an absent one in later.
    sentiment_computed: 0,
  };
}

/**
 * Whether a write gives the insights engine something new to read: a new review with a title or
 * text, a changed title, text or language, or a sentiment left out that the engine had filled in
 * (the write cleared it; reading again restores it).
 */
export function needsExtraction(old: ReviewRow | null, row: ReviewRow): boolean {
  if (old === null) return row.title !== null || row.text !== null;
  if (old.title !== row.title || old.text !== row.text || old.language !== row.language) return true;
  return row.sentiment === null && old.sentiment !== null && (row.title !== null || row.text !== null);
}

/**
 * Only bench/insights-pipeline.ts turns this off, to measure what queueing adds to the write path
 * in the same run. Nothing else may: reviews written while it is off are never read.
 */
export const extractionQueueing = { enabled: true };

/** Queues the reviews a write gave something new to read (through a store's writer), and wakes the worker after the commit. */
export async function queueForExtraction(
  trx: Kysely<DB>, accountId: string, reviews: readonly repo.QueuedReview[], now: string, write: repo.QueueRowWriter = repo.queueExtraction,
): Promise<void> {
  if (reviews.length === 0 || !extractionQueueing.enabled) return;
  // A batch that writes one review twice (its key twice in a file) queues it once, as its last
  // write says (created, then updated: not created).
  const unique = [...new Map(reviews.map((r) => [r.id, r])).values()];
  await write(trx, accountId, unique, now);
  wakeAfterCommit(trx);
}

/** Creates or updates in place by (account, platform, external_id); only a new review emits events. */
export async function upsertReview(db: Kysely<DB>, accountId: string, input: ReviewInput): Promise<UpsertResult> {
  await requireAccount(db, accountId);
  try {
    return await upsertReviewOnce(db, accountId, input);
  } catch (error) {
    // Two first writes of one identity raced and the other committed first: now it is an update.
    if (!isUniqueViolation(error)) throw error;
    return upsertReviewOnce(db, accountId, input);
  }
}

async function upsertReviewOnce(db: Kysely<DB>, accountId: string, input: ReviewInput): Promise<UpsertResult> {
  return inTransaction(db, async (trx) => {
    const node = await requireAccountNode(trx, accountId, input.node_id);
    const now = await changeStamp(trx);
    const fields = reviewFields(input, node.id, now);
    const existing = await repo.findReviewByIdentity(trx, accountId, input.platform, input.external_id, true);
    if (existing) {
      const updated: ReviewRow = { ...existing, ...fields };
      await repo.updateReview(trx, existing.id, fields);
      if (needsExtraction(existing, updated)) await queueForExtraction(trx, accountId, [{ id: updated.id, created: false }], now);
      await moveStats(trx, existing, updated);
      if (updated.node_id !== existing.node_id) await repo.moveNodeCopies(trx, existing.id, updated.node_id);
      return { review: toReview(updated), created: false };
    }
    const row: ReviewRow = { id: newId(), account_id: accountId, platform: input.platform, external_id: input.external_id, created_at: now, ...fields };
    await repo.insertReview(trx, row);
    if (needsExtraction(null, row)) await queueForExtraction(trx, accountId, [{ id: row.id, created: true }], now);
    await repo.applyStats(trx, row, repo.monthlyContribution(row, 1));
    const review = toReview(row);
    await appendEvent(trx, { accountId, type: 'review.received', data: { review } });
    for (const rule of await matchingRules(trx, row)) {
      await appendEvent(trx, { accountId, type: 'review.alert_triggered', data: { review, alert_rule_id: rule.id } });
    }
    return { review, created: true };
  });
}

export async function replyToReview(db: Kysely<DB>, id: string, text: string, repliedAt?: string | null): Promise<Review> {
  return inTransaction(db, async (trx) => {
    const existing = await requireReview(trx, id, true);
    const now = await changeStamp(trx);
    const changes = { owner_reply: text, replied_at: toIsoOrNull(repliedAt) ?? now, updated_at: now };
    const updated: ReviewRow = { ...existing, ...changes };
    await repo.updateReview(trx, id, changes);
    await moveStats(trx, existing, updated);
    const review = toReview(updated);
    await appendEvent(trx, { accountId: existing.account_id, type: 'review.replied', data: { review } });
    return review;
  });
}

export async function setHidden(db: Kysely<DB>, id: string, hidden: boolean): Promise<Review> {
  return inTransaction(db, async (trx) => {
    const existing = await requireReview(trx, id, true);
    const changes = { is_hidden: bit(hidden), updated_at: await changeStamp(trx) };
    const updated: ReviewRow = { ...existing, ...changes };
    await repo.updateReview(trx, id, changes);
    await moveStats(trx, existing, updated);
    return toReview(updated);
  });
}

/** Takes the old version of a review out of the aggregates and puts the new one in. */
async function moveStats(trx: Kysely<DB>, before: ReviewRow, after: ReviewRow): Promise<void> {
  await repo.applyStatsMany(trx, [
    { node_id: before.node_id, platform: before.platform, month: repo.monthOf(before), ...repo.monthlyContribution(before, -1) },
    { node_id: after.node_id, platform: after.platform, month: repo.monthOf(after), ...repo.monthlyContribution(after, 1) },
  ]);
}
