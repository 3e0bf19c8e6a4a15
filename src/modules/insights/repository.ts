// SQL of insights: recommendation and mention pages, topics readable by an account, writes.
import { type Insertable, type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import { subtreePage, type SubtreeScope, whereNodeFilter } from '../../db/subtree-page.ts';
import type { DB, MentionRow, MentionTable, RecommendationRow, RecommendationTable, TopicRow, TopicTable } from '../../db/schema.ts';
import type { Keyset } from '../../db/keyset.ts';

export type MentionListRow = Omit<MentionRow, 'account_id' | 'node_id' | 'import_key' | 'extracted'> & { is_hidden: number | null };

/** One page of the account's recommendations, newest first on (created_at, id); limit + 1 rows. */
export async function listRecommendationPage(db: Kysely<DB>, accountId: string, after: Keyset | null, limit: number): Promise<RecommendationRow[]> {
  // Account-wide: the whole-account shape of the one keyset helper.
  const scope: SubtreeScope = { accountId, nodes: [], wholeAccount: true };
  return subtreePage(db, scope, after, limit, 'created_at', () =>
    db.selectFrom('recommendations').selectAll().where('account_id', '=', accountId));
}

/**
 * The newest recommendations a node-bound reader may see (the dashboard): the operator's own, which
 * are about no node, and the generated ones about a node of `nodes` (they quote its reviews).
 */
export async function latestRecommendationsOf(db: Kysely<DB>, accountId: string, nodes: readonly string[], limit: number): Promise<RecommendationRow[]> {
  return db.selectFrom('recommendations').selectAll().where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('node_id', 'is', null), eb('node_id', 'in', nodes)]))
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * One page of mentions from reviews in the subtree, newest first on (created_at, id). is_hidden is
 * read from the review at query time (a correlated lookup per returned row, not a join, so the
 * keyset columns stay unambiguous), so hiding a review hides its mentions at once.
 */
export async function listMentionPage(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, filters: MentionFilters = {},
): Promise<MentionListRow[]> {
  // Unfiltered, the query depends on the scope alone: its SQL is built once per shape and reused ('mentions').
  return subtreePage<MentionListRow>(db, scope, after, limit, 'created_at', (filter) => {
    let q = whereNodeFilter(
      db.selectFrom('mentions').select((eb) => [
        'id', 'review_id', 'source_field', 'text', 'sentiment', 'canonical_label_id', 'custom_category_id', 'confidence', 'created_at',
        eb.selectFrom('reviews').select('reviews.is_hidden').whereRef('reviews.id', '=', 'mentions.review_id').as('is_hidden'),
      ]), filter);
    if (filters.topicId !== undefined) q = q.where('canonical_label_id', '=', filters.topicId);
    if (filters.sentiment !== undefined) q = q.where('sentiment', '=', filters.sentiment);
    if (filters.from !== undefined) q = q.where('created_at', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('created_at', '<', filters.to);
    return q;
  }, 'desc', Object.keys(filters).length === 0 ? 'mentions' : undefined);
}

/** The filters of a mention list (already checked). */
export interface MentionFilters {
  topicId?: string;
  sentiment?: string;
  /** created_at at or after (inclusive) / before (exclusive). */
  from?: string;
  to?: string;
}

/** Global topics and the account's own, by name (byte order on both databases) then id. */
export async function listTopics(db: Kysely<DB>, accountId: string): Promise<TopicRow[]> {
  const byName = isPostgres(db) ? sql`name collate "C"` : sql`name`;
  return db.selectFrom('topics').selectAll()
    .where((eb) => eb.or([eb('account_id', 'is', null), eb('account_id', '=', accountId)]))
    .orderBy(byName).orderBy('id').execute();
}

export async function findTopic(db: Kysely<DB>, id: string): Promise<TopicRow | undefined> {
  return db.selectFrom('topics').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertTopic(db: Kysely<DB>, row: Insertable<TopicTable>): Promise<void> {
  await db.insertInto('topics').values(row).execute();
}

export async function insertMention(db: Kysely<DB>, row: Insertable<MentionTable>): Promise<void> {
  await db.insertInto('mentions').values(row).execute();
}

export async function insertRecommendation(db: Kysely<DB>, row: Insertable<RecommendationTable>): Promise<void> {
  await db.insertInto('recommendations').values(row).execute();
}

export async function listCategories(db: Kysely<DB>, accountId: string): Promise<TopicRow[]> {
  return db.selectFrom('topics').selectAll().where('account_id', '=', accountId).where('keywords', 'is not', null)
    .orderBy('name').orderBy('id').execute();
}

export async function updateCategory(db: Kysely<DB>, id: string, changes: { name?: string; keywords?: string }): Promise<void> {
  await db.updateTable('topics').set(changes).where('id', '=', id).execute();
}

/** Deletes an account's category; the mentions it marked keep their topic and lose the mark. */
export async function deleteCategory(db: Kysely<DB>, id: string): Promise<void> {
  await db.updateTable('mentions').set({ custom_category_id: null }).where('custom_category_id', '=', id).execute();
  await db.deleteFrom('topics').where('id', '=', id).execute();
}

export interface TopicShareRow {
  node_id: string;
  topic_id: string;
  /** 1: since `recentFrom`; 0: the window before. */
  recent: number;
  total: number;
  positive: number;
  negative: number;
}

/** Mention counts per (node, topic, window) for some nodes since `since` (index range scans on (node_id, created_at)). */
export async function topicShares(db: Kysely<DB>, nodeIds: readonly string[], since: string, recentFrom: string): Promise<TopicShareRow[]> {
  if (nodeIds.length === 0) return [];
  const { rows } = await sql<TopicShareRow>`
    select node_id, topic_id, recent, count(*) as total,
      sum(case when sentiment = 'positive' then 1 else 0 end) as positive,
      sum(case when sentiment = 'negative' then 1 else 0 end) as negative
    from (select node_id, canonical_label_id as topic_id, sentiment, case when created_at >= ${recentFrom} then 1 else 0 end as recent
          from mentions where node_id in (${sql.join(nodeIds)}) and created_at >= ${since}) windowed
    group by node_id, topic_id, recent`.execute(db);
  return rows.map((r) => ({ ...r, recent: Number(r.recent), total: Number(r.total), positive: Number(r.positive), negative: Number(r.negative) }));
}

export interface TopicMentionRow {
  id: string;
  text: string;
  sentiment: string | null;
  created_at: string;
  review_id: string;
  review_text: string | null;
  review_title: string | null;
  node_id: string;
}

/** The latest mentions of a topic in some nodes, with their review's words. */
export async function latestTopicMentions(db: Kysely<DB>, nodeIds: readonly string[], topicId: string, limit: number): Promise<TopicMentionRow[]> {
  if (nodeIds.length === 0) return [];
  return db.selectFrom('mentions as m').innerJoin('reviews as r', 'r.id', 'm.review_id')
    .select(['m.id', 'm.text', 'm.sentiment', 'm.created_at', 'm.review_id', 'm.node_id', 'r.text as review_text', 'r.title as review_title'])
    .where('m.node_id', 'in', nodeIds).where('m.canonical_label_id', '=', topicId)
    .orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(limit).execute();
}
