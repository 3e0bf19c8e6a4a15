// Reading queued reviews with the insights engine: one batch claimed under a lease, read outside any
// transaction (the engine is pure CPU), then written in one transaction that replaces the reviews'
// engine mentions and clears the queue rows. A worker that dies mid-batch leaves leased rows that
// another claims once the lease runs out: nothing is lost, and a lease keeps two workers apart.
import type { Kysely } from 'kysely';
import type { DB, MentionRow } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { CustomCategory, Extractor } from '../../extraction/types.ts';
import { newId } from '../../lib/ids.ts';
import type { Log } from '../../lib/log.ts';
import * as repo from './extraction-repository.ts';

export const EXTRACTION_BATCH = 200;
/**
 * A dead worker's rows are taken again after it, so it bounds how late a review's mentions come when a
 * worker crashes mid-batch (insights.md: within 10 s, crash or not). A batch takes a fraction of a
 * second; one that outlives its lease on a starved machine is read twice, to the same mentions.
 */
export const EXTRACTION_LEASE_MS = 5_000;

export interface ExtractionDeps {
  db: Kysely<DB>;
  extractor: Extractor;
  log: Pick<Log, 'warn'>;
}

/** Reads one batch of due reviews; answers how many queue rows it took (0: nothing was due). */
export async function extractDueBatch(deps: ExtractionDeps, limit = EXTRACTION_BATCH): Promise<number> {
  const { db } = deps;
  const now = new Date();
  const claimed = await inTransaction(db, (trx) =>
    repo.claimExtractions(trx, now.toISOString(), new Date(now.getTime() + EXTRACTION_LEASE_MS).toISOString(), limit));
  if (claimed.length === 0) return 0;
  const reviews = await repo.reviewsToRead(db, claimed.map((c) => c.review_id));
  const topics = await repo.globalTopicIds(db);
  const categories = await categoriesByAccount(db, [...new Set(reviews.map((r) => r.account_id))]);
  const writes: repo.ExtractionWrite[] = [];
  for (const review of reviews) {
    let extraction: ReturnType<Extractor['extract']>;
    try {
      extraction = deps.extractor.extract(review, categories.get(review.account_id) ?? []);
    } catch (error) {
      // A text the engine cannot read must not block the queue: its row is cleared, and said.
      deps.log.warn({ err: error, reviewId: review.id }, 'insights engine could not read a review; skipped');
      continue;
    }
    const mentions: MentionRow[] = [];
    for (const m of extraction.mentions) {
      const topicId = topics.get(m.topic);
      if (topicId === undefined) continue;
      mentions.push({
        id: newId(), account_id: review.account_id, review_id: review.id, node_id: review.node_id,
        canonical_label_id: topicId, custom_category_id: m.custom_category_id, text: m.text, source_field: m.source_field,
        sentiment: m.sentiment, confidence: Math.round(m.confidence * 1000) / 1000,
        // A mention is dated by the review it comes from: lists and trends follow when guests wrote.
        created_at: review.reviewed_at, import_key: null, extracted: 1,
      });
    }
    writes.push({ reviewId: review.id, mentions, sentiment: extraction.sentiment });
  }
  await inTransaction(db, (trx) => repo.writeExtractions(trx, writes, claimed));
  return claimed.length;
}

async function categoriesByAccount(db: Kysely<DB>, accountIds: string[]): Promise<Map<string, CustomCategory[]>> {
  const byAccount = new Map<string, CustomCategory[]>();
  for (const row of await repo.categoriesOf(db, accountIds)) {
    const list = byAccount.get(row.account_id) ?? [];
    list.push({ id: row.id, keywords: JSON.parse(row.keywords) as CustomCategory['keywords'] });
    byAccount.set(row.account_id, list);
  }
  return byAccount;
}

/** Queues the reviews of an account (or all) again, e.g. after the lexicons changed. */
/** Queues the reviews again; answers how many, and the time they were queued at (for remainingOf). */
export async function requeueReviews(db: Kysely<DB>, accountId: string | null, since: string | null): Promise<{ total: number; queuedAt: string }> {
  const queuedAt = new Date().toISOString();
  return { total: await inTransaction(db, (trx) => repo.requeueAll(trx, queuedAt, accountId, since)), queuedAt };
}

/** Of the reviews one requeue queued (at `queuedAt`), how many no worker has read yet (this process's or another's). */
export const remainingOf = (db: Kysely<DB>, accountId: string | null, queuedAt: string): Promise<number> => repo.queuedAt(db, accountId, queuedAt);

export const pendingExtractions = (db: Kysely<DB>): Promise<number> => repo.queueLength(db);
