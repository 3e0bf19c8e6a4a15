// SQL of the recommendation pass: mention counts per (node, topic, window) and review ratings per
// node from aggregates over one account's last 180 days (index range scans on (account_id, time)),
// typical negative quotes and the upsert by generated_key.
import { type Kysely, sql } from 'kysely';
import type { DB, RecommendationRow } from '../../db/schema.ts';

export interface TopicCounts {
  node_id: string;
  topic_id: string;
  /** 1: the last 90 days; 0: the 90 before. */
  recent: number;
  total: number;
  negative: number;
  /** Sum and count of the normalised ratings (0–100) of the reviews with a negative mention, each review once. */
  negative_rating_sum: number;
  negative_rating_count: number;
}

export async function topicCounts(db: Kysely<DB>, accountId: string, since: string, recentFrom: string): Promise<TopicCounts[]> {
  const { rows } = await sql<TopicCounts>`
    select node_id, topic_id, recent, sum(mentions) as total, sum(negatives) as negative,
      coalesce(sum(case when negatives > 0 then rating end), 0) as negative_rating_sum,
      count(case when negatives > 0 then rating end) as negative_rating_count
    from (
      -- One row per review and topic: a review that complains twice about a topic is one complaining
      -- review (its rating counted once in the impact), and two of the topic's negative mentions.
      select node_id, topic_id, rating, recent,
        count(*) as mentions, sum(case when sentiment = 'negative' then 1 else 0 end) as negatives
      from (
        select m.node_id, m.canonical_label_id as topic_id, m.review_id, m.sentiment, r.rating_normalized as rating,
          case when m.created_at >= ${recentFrom} then 1 else 0 end as recent
        from mentions m join reviews r on r.id = m.review_id
        where m.account_id = ${accountId} and m.created_at >= ${since} and r.is_hidden = 0
      ) windowed
      group by node_id, topic_id, review_id, rating, recent
    ) per_review
    group by node_id, topic_id, recent`.execute(db);
  return rows.map((r) => ({ ...r, recent: Number(r.recent), total: Number(r.total), negative: Number(r.negative), negative_rating_sum: Number(r.negative_rating_sum), negative_rating_count: Number(r.negative_rating_count) }));
}

export interface NodeRatings {
  node_id: string;
  reviews: number;
  rating_sum: number;
  rating_count: number;
}

/** Reviews and their normalised ratings per node since `from`. */
export async function nodeRatings(db: Kysely<DB>, accountId: string, from: string): Promise<NodeRatings[]> {
  const { rows } = await sql<NodeRatings>`
    select node_id, count(*) as reviews, coalesce(sum(rating_normalized), 0) as rating_sum, count(rating_normalized) as rating_count
    from reviews where account_id = ${accountId} and reviewed_at >= ${from} and is_hidden = 0 group by node_id`.execute(db);
  return rows.map((r) => ({ node_id: r.node_id, reviews: Number(r.reviews), rating_sum: Number(r.rating_sum), rating_count: Number(r.rating_count) }));
}

/** The most recent negative mentions of a topic in some nodes, shortest first among them (quotable). */
export async function negativeQuotes(db: Kysely<DB>, accountId: string, nodeIds: readonly string[], topicId: string, from: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('mentions').select('text')
    .where('account_id', '=', accountId).where('canonical_label_id', '=', topicId).where('node_id', 'in', nodeIds)
    .where('sentiment', '=', 'negative').where('created_at', '>=', from)
    .orderBy('created_at', 'desc').limit(20).execute();
  // The same words twice (two guests, or one review's clause read for two topics) are quoted once.
  const distinct = [...new Map(rows.map((r) => [r.text.trim().toLowerCase(), r.text.trim()])).values()];
  return distinct.filter((t) => t.length <= 200).sort((a, b) => a.length - b.length).slice(0, limit);
}

export async function accountsWithMentions(db: Kysely<DB>): Promise<string[]> {
  return (await db.selectFrom('accounts').select('id').execute()).map((r) => r.id);
}

/** Writes the pass's recommendations (new ones inserted, standing ones updated in place) and removes the account's generated ones that no longer hold. */
export async function replaceGenerated(db: Kysely<DB>, accountId: string, rows: readonly RecommendationRow[], now: string): Promise<void> {
  for (const row of rows) {
    await db.insertInto('recommendations').values(row)
      .onConflict((oc) => oc.column('generated_key').doUpdateSet({
        title: row.title, body: row.body, priority: row.priority, impact: row.impact, facts: row.facts, updated_at: now,
      }))
      .execute();
  }
  const keep = rows.map((r) => r.generated_key!);
  let removal = db.deleteFrom('recommendations').where('account_id', '=', accountId).where('generated_key', 'is not', null);
  if (keep.length > 0) removal = removal.where('generated_key', 'not in', keep);
  await removal.execute();
}
