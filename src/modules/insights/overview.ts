// What the dashboard's Insights page shows for a user's reach: per property and topic the mentions
// of the last 90 days with their positive and negative shares (the heat map), per topic the
// negative share against the 90 days before (the trend), and a topic's latest mentions with the
// review they come from. Aggregates over the mentions' (node_id, created_at) index, not scans.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../lib/errors.ts';
import { lookup } from '../../lib/ids.ts';
import { DAY_MS } from '../../lib/time.ts';
import { WINDOW_DAYS } from './recommendations.ts';
import * as repo from './repository.ts';

export interface Share { total: number; positive: number; negative: number }
export interface TopicTrend { topicId: string; name: string; recent: Share; before: Share }
export interface InsightsOverview {
  topics: Array<{ id: string; name: string }>;
  /** node id → topic id → the last 90 days' shares. */
  heat: Map<string, Map<string, Share>>;
  trends: TopicTrend[];
}

const empty = (): Share => ({ total: 0, positive: 0, negative: 0 });
const add = (into: Share, row: Share) => {
  into.total += row.total;
  into.positive += row.positive;
  into.negative += row.negative;
};

export async function insightsOverview(db: Kysely<DB>, principal: Principal, now: Date): Promise<InsightsOverview> {
  const recentFrom = new Date(now.getTime() - WINDOW_DAYS * DAY_MS).toISOString();
  const since = new Date(now.getTime() - 2 * WINDOW_DAYS * DAY_MS).toISOString();
  const topics = (await repo.listTopics(db, principal.accountId)).filter((t) => t.account_id === null && t.parent_label_id === null).map((t) => ({ id: t.id, name: t.name }));
  const rows = await repo.topicShares(db, principal.subtree, since, recentFrom);
  const heat = new Map<string, Map<string, Share>>();
  const recent = new Map<string, Share>();
  const before = new Map<string, Share>();
  for (const row of rows) {
    const windowed = row.recent === 1 ? recent : before;
    if (!windowed.has(row.topic_id)) windowed.set(row.topic_id, empty());
    add(windowed.get(row.topic_id)!, row);
    if (row.recent !== 1) continue;
    if (!heat.has(row.node_id)) heat.set(row.node_id, new Map());
    const cells = heat.get(row.node_id)!;
    if (!cells.has(row.topic_id)) cells.set(row.topic_id, empty());
    add(cells.get(row.topic_id)!, row);
  }
  const trends = topics.map((t) => ({ topicId: t.id, name: t.name, recent: recent.get(t.id) ?? empty(), before: before.get(t.id) ?? empty() }))
    .filter((t) => t.recent.total + t.before.total > 0);
  return { topics, heat, trends };
}

/**
 * A topic's latest mentions in the user's reach, with their review; 404 for a topic the account
 * cannot read. `engine`: one of the engine's own topics (not an account's category).
 */
export async function topicMentions(db: Kysely<DB>, principal: Principal, topicId: string, limit = 20) {
  const topic = await lookup(topicId, (uuid) => repo.findTopic(db, uuid));
  if (!topic || (topic.account_id !== null && topic.account_id !== principal.accountId)) throw notFound('topic');
  return { topic: { id: topic.id, name: topic.name, engine: topic.account_id === null }, mentions: await repo.latestTopicMentions(db, principal.subtree, topic.id, limit) };
}
