// Recommendations drawn from how topics move (shared/spec/insights.md): for each property and group
// of an account, each topic's mentions of the last 90 days against the 90 before and against the
// account's other properties. A topic whose negative share is high or rising yields one
// recommendation, keyed by (account, node, topic) so the next pass updates it in place; one that no
// longer holds is removed. Operators' own recommendations (no key) are never touched.
import type { Kysely } from 'kysely';
import type { DB, NodeRow, RecommendationRow } from '../../db/schema.ts';
import { claimDailyRun } from '../../db/daily-run.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId } from '../../lib/ids.ts';
import { DAY_MS } from '../../lib/time.ts';
import { accountNodes, PROPERTY } from '../nodes/service.ts';
import * as repo from './recommendation-repository.ts';
import { type MentionCount, negativeShare, type RecommendationFacts } from './recommendation-facts.ts';
import { recommendationText } from './recommendation-text.ts';
import { globalTopicIds } from './extraction-repository.ts';

/** Insights compare the last 90 days with the 90 before. */
export const WINDOW_DAYS = 90;
/** Fewer recent mentions than this say too little about a topic at a node. */
export const MIN_MENTIONS = 5;
/** A negative share this high is a problem by itself… */
export const HIGH_SHARE = 0.4;
/** …and a lower one (at least FLOOR_SHARE) is when it rose this much, or lies this far above the account's other properties. */
export const RISE = 0.15;
export const FLOOR_SHARE = 0.2;

/** Mentions of a topic, and the normalised ratings of the reviews with a negative one (each review once). */
interface Figures { total: number; negative: number; ratingSum: number; ratingCount: number }
const empty = (): Figures => ({ total: 0, negative: 0, ratingSum: 0, ratingCount: 0 });
const count = (f: Figures): MentionCount => ({ negative: f.negative, total: f.total });

/** Runs the pass for every account when a day has passed since the last one (one worker runs it). */
export async function refreshRecommendationsIfDue(db: Kysely<DB>, now: Date): Promise<boolean> {
  const claimed = await claimDailyRun(db, 'recommendations', now, DAY_MS);
  if (!claimed) return false;
  for (const accountId of await repo.accountsWithMentions(db)) await refreshRecommendations(db, accountId, now);
  return true;
}

/** Recomputes one account's generated recommendations; answers how many hold. */
export async function refreshRecommendations(db: Kysely<DB>, accountId: string, now: Date): Promise<number> {
  const recentFrom = new Date(now.getTime() - WINDOW_DAYS * DAY_MS).toISOString();
  const since = new Date(now.getTime() - 2 * WINDOW_DAYS * DAY_MS).toISOString();
  const nodes = await accountNodes(db, accountId);
  const counts = await repo.topicCounts(db, accountId, since, recentFrom);
  const ratings = await repo.nodeRatings(db, accountId, recentFrom);
  const topicNames = new Map([...(await globalTopicIds(db)).entries()].map(([name, id]) => [id, name]));

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ancestorsOf = (nodeId: string): string[] => byId.get(nodeId)?.path.split('/').filter(Boolean) ?? [nodeId];
  // Figures rolled up from each mention's node to every node above it, per topic and window.
  const recent = new Map<string, Figures>();
  const before = new Map<string, Figures>();
  const accountRecent = new Map<string, Figures>();
  for (const c of counts) {
    for (const nodeId of ancestorsOf(c.node_id)) add(c.recent === 1 ? recent : before, `${nodeId}/${c.topic_id}`, c);
    if (c.recent === 1) add(accountRecent, c.topic_id, c);
  }
  const reviewsAt = new Map<string, repo.NodeRatings>();
  for (const r of ratings) {
    for (const nodeId of ancestorsOf(r.node_id)) {
      const sum = reviewsAt.get(nodeId) ?? { node_id: nodeId, reviews: 0, rating_sum: 0, rating_count: 0 };
      sum.reviews += r.reviews;
      sum.rating_sum += r.rating_sum;
      sum.rating_count += r.rating_count;
      reviewsAt.set(nodeId, sum);
    }
  }

  const rows: RecommendationRow[] = [];
  const stamp = now.toISOString();
  // Hotels before their groups (deepest first), so a group's problem can be seen to be its hotels' already.
  const judged = nodes.filter((n) => isPropertyOrGroup(n, nodes)).sort((a, b) => depthOf(b) - depthOf(a));
  const kept: Array<{ path: string; topicId: string; negative: number }> = [];
  for (const node of judged) {
    for (const [topicId, topicName] of topicNames) {
      const cur = recent.get(`${node.id}/${topicId}`);
      if (!cur || cur.total < MIN_MENTIONS) continue;
      if (node.type !== PROPERTY && coveredBelow(node, topicId, kept) >= COVERED * cur.negative) continue;
      const prev = before.get(`${node.id}/${topicId}`) ?? empty();
      const all = accountRecent.get(topicId) ?? empty();
      const others: Figures = { total: all.total - cur.total, negative: all.negative - cur.negative, ratingSum: 0, ratingCount: 0 };
      const shareNow = negativeShare(cur);
      const change = prev.total >= MIN_MENTIONS ? shareNow - negativeShare(prev) : null;
      const gap = others.total >= MIN_MENTIONS ? shareNow - negativeShare(others) : null;
      const holds = shareNow >= HIGH_SHARE || (shareNow >= FLOOR_SHARE && ((change !== null && change >= RISE) || (gap !== null && gap >= RISE)));
      if (!holds) continue;
      const quotes = await repo.negativeQuotes(db, accountId, subtreeOf(node, nodes), topicId, recentFrom, 2);
      const facts: RecommendationFacts = {
        node: node.name, topic: topicName, recent: count(cur), before: change === null ? null : count(prev),
        others: gap === null ? null : count(others), quotes: [...quotes], gain: gainOf(cur, reviewsAt.get(node.id)),
      };
      kept.push({ path: node.path, topicId, negative: cur.negative });
      rows.push({
        id: newId(), account_id: accountId, node_id: node.id, generated_key: `${accountId}/${node.id}/${topicId}`,
        canonical_label_id: topicId, created_at: stamp, updated_at: stamp, import_key: null,
        ...recommendationText(facts, 'en'), priority: priorityOf(cur, change), facts: JSON.stringify(facts),
      });
    }
  }
  await inTransaction(db, (trx) => repo.replaceGenerated(trx, accountId, rows, stamp));
  return rows.length;
}

function add(map: Map<string, Figures>, key: string, c: repo.TopicCounts): void {
  const f = map.get(key) ?? empty();
  f.total += c.total;
  f.negative += c.negative;
  f.ratingSum += c.negative_rating_sum;
  f.ratingCount += c.negative_rating_count;
  map.set(key, f);
}

/** Properties, and the groups between them and the root (the root is the whole account). */
function isPropertyOrGroup(node: NodeRow, nodes: readonly NodeRow[]): boolean {
  if (node.type === PROPERTY) return true;
  return node.parent_id !== null && nodes.some((n) => n.parent_id === node.id);
}

const depthOf = (node: NodeRow): number => node.path.split('/').filter(Boolean).length;

/**
 * A group's recommendation says nothing new when recommendations below it already hold this share of
 * its negative mentions: the group and the hotel behind its figures would list the same problem twice.
 */
const COVERED = 0.75;

/** The negative mentions of `topicId` below `group` that recommendations already kept speak for (the uppermost of them, so none counts twice). */
function coveredBelow(group: NodeRow, topicId: string, kept: ReadonlyArray<{ path: string; topicId: string; negative: number }>): number {
  const below = kept.filter((k) => k.topicId === topicId && k.path !== group.path && k.path.startsWith(group.path));
  return below.filter((k) => !below.some((upper) => upper !== k && k.path.startsWith(upper.path))).reduce((sum, k) => sum + k.negative, 0);
}

function subtreeOf(node: NodeRow, nodes: readonly NodeRow[]): string[] {
  return nodes.filter((n) => n.path.startsWith(node.path)).map((n) => n.id);
}

/**
 * high: at least half of the recent mentions are negative and there are 10 or more of them, or the
 * share rose by 25 points; medium: at least a third negative or a rise of 15 points; low otherwise.
 */
export function priorityOf(cur: Figures, change: number | null): 'high' | 'medium' | 'low' {
  const s = negativeShare(cur);
  if ((s >= 0.5 && cur.negative >= 10) || (change !== null && change >= 0.25)) return 'high';
  if (s >= 1 / 3 || (change !== null && change >= RISE)) return 'medium';
  return 'low';
}

/**
 * What fixing the topic would add to the node's average rating (of 5), if the reviews that complain
 * about it had rated like the node's other reviews of the last 90 days:
 *   (reviews with a negative mention ÷ all reviews) × (others' mean − their mean), in stars.
 */
export function gainOf(cur: Figures, node: repo.NodeRatings | undefined): number | null {
  if (!node || node.rating_count === 0 || cur.ratingCount === 0) return null;
  const complaining = cur.ratingSum / cur.ratingCount;
  const othersCount = node.rating_count - cur.ratingCount;
  if (othersCount <= 0) return null;
  const others = (node.rating_sum - cur.ratingSum) / othersCount;
  // Never promise more than the stars the node's average has left to gain.
  const room = 5 - node.rating_sum / node.rating_count / 20;
  const gain = Math.min((cur.ratingCount / node.rating_count) * (others - complaining) / 20, room);
  return gain > 0 ? gain : null;
}
