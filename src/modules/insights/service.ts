// Insight rules: recommendations are account-wide, mentions follow their review's subtree and hidden
// flag, topics are global or the account's own; and the operator's creates.
import type { Kysely } from 'kysely';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import type { Keyset } from '../../db/keyset.ts';
import type { DB, RecommendationRow, TopicRow } from '../../db/schema.ts';
import { hasFilters, type PageOf, toPage } from '../../http/pagination.ts';
import { invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso, toIsoOrNull } from '../../lib/time.ts';
import { timeRange } from '../../http/time-range.ts';
import { requireAccount } from '../accounts/service.ts';
import { narrowedScope } from '../nodes/service.ts';
import { requireReview } from '../reviews/service.ts';
import * as repo from './repository.ts';
import { parseFacts, type RecommendationFacts } from './recommendation-facts.ts';
import type { AccountTopicInput, Mention, MentionInput, MentionListQuery, Recommendation, RecommendationInput, Topic } from './schemas.ts';
import { normaliseKeywords } from './categories.ts';

const toTopic = (row: TopicRow): Topic =>
  ({ id: row.id, name: row.name, language: row.language, parent_label_id: row.parent_label_id });

const toRecommendation = (row: RecommendationRow): Recommendation => ({
  id: row.id, title: row.title, body: row.body, priority: row.priority, impact: row.impact,
  canonical_label_id: row.canonical_label_id, created_at: row.created_at,
});

const toMention = (row: repo.MentionListRow): Mention => ({
  id: row.id, review_id: row.review_id, source_field: row.source_field, text: row.text, sentiment: row.sentiment,
  canonical_label_id: row.canonical_label_id, custom_category_id: row.custom_category_id, confidence: row.confidence,
  is_hidden: Number(row.is_hidden) !== 0, created_at: row.created_at,
});

// ---- public reads ----

/** The keyset of lists newest first on (created_at, id). */
const byCreatedAt = (r: { created_at: string; id: string }): Keyset => ({ time: r.created_at, id: r.id });

export async function listRecommendations(db: Kysely<DB>, principal: Principal, after: Keyset | null, limit: number): Promise<PageOf<Recommendation>> {
  const rows = await repo.listRecommendationPage(db, principal.accountId, after, limit);
  return toPage(rows, limit, byCreatedAt, toRecommendation);
}

/**
 * The newest recommendations for a person of the dashboard: the account's, and for someone bound
 * below the root only those about their part of it (a generated one quotes a hotel's reviews).
 */
export async function recommendationsInReach(db: Kysely<DB>, principal: Principal, limit: number): Promise<RecommendationWithFacts[]> {
  const rows = principal.isAccountRoot
    ? (await repo.listRecommendationPage(db, principal.accountId, null, limit)).slice(0, limit)
    : await repo.latestRecommendationsOf(db, principal.accountId, principal.subtree, limit);
  return rows.map((row) => ({ ...toRecommendation(row), facts: parseFacts(row.facts) }));
}

/** A recommendation as the dashboard shows it: with the figures a generated one was drawn from. */
export type RecommendationWithFacts = Recommendation & { facts: RecommendationFacts | null };

export async function listMentions(
  db: Kysely<DB>, principal: Principal, after: Keyset | null, limit: number, query: MentionListQuery = {},
): Promise<PageOf<Mention>> {
  if (!hasFilters(query)) return toPage(await repo.listMentionPage(db, subtreeScope(principal), after, limit), limit, byCreatedAt, toMention);
  const scope = query.node_id === undefined ? subtreeScope(principal) : await narrowedScope(db, principal, query.node_id);
  const [from, to] = timeRange(query);
  const rows = await repo.listMentionPage(db, scope, after, limit, {
    ...(query.topic_id !== undefined ? { topicId: query.topic_id } : {}),
    ...(query.sentiment !== undefined ? { sentiment: query.sentiment } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  });
  return toPage(rows, limit, byCreatedAt, toMention);
}

export async function listTopics(db: Kysely<DB>, principal: Principal): Promise<Topic[]> {
  return (await repo.listTopics(db, principal.accountId)).map(toTopic);
}

// ---- operator writes (admin API, importer, demo) ----

/** A topic the account may use (global or its own; only global ones for a global topic), or 400 naming the field. */
async function requireReadableTopic(db: Kysely<DB>, accountId: string | null, id: string, field: string): Promise<TopicRow> {
  const topic = await repo.findTopic(db, id);
  if (!topic || (topic.account_id !== null && topic.account_id !== accountId)) {
    throw invalid(`body.${field} must be ${accountId === null ? 'a global topic' : 'a topic readable by this account (global or its own)'}`);
  }
  return topic;
}

/** accountId null creates a global topic, readable by every account. importKey: the importer's identity of the record. */
/** A global topic (accountId null) or an account's own, which may carry keyword lists (then it is a category as well). */
export async function createTopic(db: Kysely<DB>, accountId: string | null, input: AccountTopicInput, importKey: string | null = null): Promise<Topic> {
  return db.transaction().execute(async (trx) => {
    if (accountId !== null) await requireAccount(trx, accountId);
    if (input.parent_label_id != null) await requireReadableTopic(trx, accountId, input.parent_label_id, 'parent_label_id');
    const row: TopicRow = {
      id: newId(), account_id: accountId, name: input.name, language: input.language ?? null,
      parent_label_id: input.parent_label_id ?? null, created_at: toIsoOrNull(input.created_at) ?? nowIso(), import_key: importKey,
      keywords: accountId === null || input.keywords == null ? null : JSON.stringify(normaliseKeywords(input.keywords)),
    };
    await repo.insertTopic(trx, row);
    return toTopic(row);
  });
}

/** A mention of a topic in a review; it takes the review's account and node. */
export async function createMention(db: Kysely<DB>, reviewId: string, input: MentionInput, importKey: string | null = null): Promise<Mention> {
  return db.transaction().execute(async (trx) => {
    const review = await requireReview(trx, reviewId);
    await requireReadableTopic(trx, review.account_id, input.canonical_label_id, 'canonical_label_id');
    const row = {
      id: newId(), account_id: review.account_id, review_id: review.id, node_id: review.node_id,
      canonical_label_id: input.canonical_label_id, custom_category_id: input.custom_category_id ?? null,
      text: input.text, source_field: input.source_field, sentiment: input.sentiment ?? null,
      confidence: input.confidence ?? null, created_at: toIsoOrNull(input.created_at) ?? nowIso(), import_key: importKey,
      extracted: 0,
    };
    await repo.insertMention(trx, row);
    return toMention({ ...row, is_hidden: review.is_hidden });
  });
}

export async function createRecommendation(db: Kysely<DB>, accountId: string, input: RecommendationInput, importKey: string | null = null): Promise<Recommendation> {
  return db.transaction().execute(async (trx) => {
    await requireAccount(trx, accountId);
    if (input.canonical_label_id != null) await requireReadableTopic(trx, accountId, input.canonical_label_id, 'canonical_label_id');
    const row: RecommendationRow = {
      id: newId(), account_id: accountId, title: input.title, body: input.body, priority: input.priority,
      impact: input.impact ?? null, canonical_label_id: input.canonical_label_id ?? null,
      created_at: toIsoOrNull(input.created_at) ?? nowIso(), import_key: importKey,
      node_id: null, generated_key: null, updated_at: null, facts: null,
    };
    await repo.insertRecommendation(trx, row);
    return toRecommendation(row);
  });
}
