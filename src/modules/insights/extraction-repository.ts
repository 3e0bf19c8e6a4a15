// SQL of the extraction queue: claim due rows under a lease, read the reviews they name, and write
// what the engine found (mentions replaced, a computed sentiment) while clearing the rows read.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import { changeStamp } from '../../db/change-stamp.ts';
import type { DB, MentionRow, ReviewRow } from '../../db/schema.ts';

export interface ClaimedExtraction {
  review_id: string;
  enqueued_at: string;
}

/**
 * Takes up to `limit` rows that are due (never leased, or their lease ran out: a worker died) and
 * leases them until `leaseUntil`, oldest review first: the queue's key is the review id, a UUIDv7
 * (no index of its own for the order, which each queued review would write in the writer's
 * transaction). PostgreSQL skips rows another worker is claiming at the same moment
 * (so two workers never read one review at once); SQLite has one writer at a time.
 */
export async function claimExtractions(db: Kysely<DB>, now: string, leaseUntil: string, limit: number): Promise<ClaimedExtraction[]> {
  const pg = isPostgres(db);
  const due = sql`select review_id from extraction_queue where lease_until is null or lease_until < ${now}
    order by review_id limit ${limit}${pg ? sql` for update skip locked` : sql``}`;
  const { rows } = await sql<ClaimedExtraction>`update extraction_queue set lease_until = ${leaseUntil}, attempts = attempts + 1
    where review_id in (${due}) returning review_id, enqueued_at`.execute(db);
  return rows;
}

export type ReviewToRead = Pick<ReviewRow, 'id' | 'account_id' | 'node_id' | 'title' | 'text' | 'language' | 'reviewed_at'>;

export async function reviewsToRead(db: Kysely<DB>, ids: readonly string[]): Promise<ReviewToRead[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('reviews').select(['id', 'account_id', 'node_id', 'title', 'text', 'language', 'reviewed_at'])
    .where('id', 'in', ids).execute();
}

/** The accounts' own categories that carry keywords. */
export async function categoriesOf(db: Kysely<DB>, accountIds: readonly string[]): Promise<Array<{ id: string; account_id: string; keywords: string }>> {
  if (accountIds.length === 0) return [];
  const rows = await db.selectFrom('topics').select(['id', 'account_id', 'keywords'])
    .where('account_id', 'in', accountIds).where('keywords', 'is not', null).execute();
  return rows as Array<{ id: string; account_id: string; keywords: string }>;
}

/** The global topics by name. */
export async function globalTopicIds(db: Kysely<DB>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('topics').select(['id', 'name']).where('account_id', 'is', null).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

export interface ExtractionWrite {
  reviewId: string;
  mentions: MentionRow[];
  /** The computed sentiment, written only where the review has none given. */
  sentiment: string | null;
}

/**
 * Replaces the engine's mentions of each review read (an operator's stay), fills in a computed
 * sentiment where none was given, and deletes the queue rows read, unless the review was queued
 * again meanwhile (a newer enqueued_at): then it stays queued and is read once more.
 */
export async function writeExtractions(db: Kysely<DB>, writes: readonly ExtractionWrite[], claimed: readonly ClaimedExtraction[]): Promise<void> {
  const ids = writes.map((w) => w.reviewId);
  if (ids.length > 0) await db.deleteFrom('mentions').where('review_id', 'in', ids).where('extracted', '=', 1).execute();
  const mentions = writes.flatMap((w) => w.mentions);
  for (let i = 0; i < mentions.length; i += 500) await db.insertInto('mentions').values(mentions.slice(i, i + 500)).execute();
  // One statement per computed value and one for the queue, whatever the batch's size. A review
  // whose sentiment changes gets a new change stamp, so a client syncing by updated_at sees it;
  // one whose computed sentiment stays the same keeps its stamp.
  const stamp = writes.length > 0 ? await changeStamp(db) : null;
  for (const sentiment of new Set(writes.map((w) => w.sentiment))) {
    const chunk = writes.filter((w) => w.sentiment === sentiment).map((w) => w.reviewId);
    await db.updateTable('reviews').set({ sentiment, sentiment_computed: 1, updated_at: stamp! })
      .where('id', 'in', chunk)
      .where((eb) => eb.or([eb('sentiment', 'is', null), eb('sentiment_computed', '=', 1)]))
      .where((eb) => (sentiment === null ? eb('sentiment', 'is not', null) : eb.or([eb('sentiment', 'is', null), eb('sentiment', '!=', sentiment)])))
      .execute();
  }
  if (claimed.length > 0) {
    await db.deleteFrom('extraction_queue')
      .where((eb) => eb(eb.refTuple('review_id', 'enqueued_at'), 'in', claimed.map((c) => eb.tuple(c.review_id, c.enqueued_at))))
      .execute();
  }
}

/** How many reviews wait to be read (for the CLI's progress and for tests). */
export async function queueLength(db: Kysely<DB>): Promise<number> {
  const row = await db.selectFrom('extraction_queue').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * How many reviews of the account (or all) queued by one requeue, at `at`, still wait to be read. Not
 * those queued later: on a busy server new reviews keep coming, and a wait for them would never end.
 */
export async function queuedAt(db: Kysely<DB>, accountId: string | null, at: string): Promise<number> {
  let query = db.selectFrom('extraction_queue').select((eb) => eb.fn.countAll<number>().as('n')).where('enqueued_at', '=', at);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Queues every review of the account (or all) with a title or text, written since `since`. */
export async function requeueAll(db: Kysely<DB>, now: string, accountId: string | null, since: string | null): Promise<number> {
  const { numAffectedRows } = await sql`insert into extraction_queue (review_id, account_id, enqueued_at, attempts)
    select id, account_id, ${now}, 0 from reviews
    where (title is not null or text is not null)
    ${accountId === null ? sql`` : sql`and account_id = ${accountId}`}
    ${since === null ? sql`` : sql`and updated_at >= ${since}`}
    on conflict (review_id) do update set enqueued_at = excluded.enqueued_at, lease_until = null, attempts = 0`.execute(db);
  return Number(numAffectedRows ?? 0);
}
