// Alert rules: a new review under the rule's node subtree that is at or below max_rating, has one
// of the sentiments, or contains one of the keywords (case-insensitive) triggers the rule.
import type { Kysely, Selectable } from 'kysely';
import type { AlertRuleTable, DB, ReviewRow } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { parseJson } from '../../lib/json.ts';
import { findNode } from '../nodes/repository.ts';
import type { AlertRuleInput } from './schemas.ts';

export interface AlertRule {
  id: string;
  node_id: string;
  max_rating: number | null;
  sentiments: string[] | null;
  keywords: string[] | null;
  created_at: string;
}

export async function createAlertRule(db: Kysely<DB>, accountId: string, input: AlertRuleInput): Promise<AlertRule> {
  const node = await findNode(db, input.node_id);
  if (!node || node.account_id !== accountId) throw new AppError(400, 'node_id must be a node of this account');
  if (input.max_rating == null && input.sentiments == null && input.keywords == null) {
    throw new AppError(400, 'an alert rule needs at least one of max_rating, sentiments, keywords');
  }
  const rule: AlertRule = {
    id: newId(), node_id: node.id, max_rating: input.max_rating ?? null,
    sentiments: input.sentiments ?? null, keywords: input.keywords ?? null, created_at: nowIso(),
  };
  await db.insertInto('alert_rules').values({
    ...rule, account_id: accountId,
    sentiments: rule.sentiments && JSON.stringify(rule.sentiments), keywords: rule.keywords && JSON.stringify(rule.keywords),
  }).execute();
  return rule;
}

/** The rules of the account whose node is the review's node or one of its ancestors, that match it. */
export async function matchingRules(db: Kysely<DB>, review: ReviewRow): Promise<AlertRule[]> {
  const node = await findNode(db, review.node_id);
  if (!node) return [];
  const ancestors = node.path.split('/').filter(Boolean);
  const rows = await db.selectFrom('alert_rules').selectAll()
    .where('account_id', '=', review.account_id).where('node_id', 'in', ancestors).execute();
  return rows.map(toAlertRule).filter((rule) => ruleMatches(rule, review));
}

export function toAlertRule(r: Selectable<AlertRuleTable>): AlertRule {
  return {
    id: r.id, node_id: r.node_id, max_rating: r.max_rating, created_at: r.created_at,
    sentiments: parseJson<string[] | null>(r.sentiments, null), keywords: parseJson<string[] | null>(r.keywords, null),
  };
}

/** Whether a review triggers a rule (the rule's node already known to be the review's node or an ancestor). */
export function ruleMatches(rule: AlertRule, review: Pick<ReviewRow, 'rating' | 'sentiment' | 'title' | 'text'>): boolean {
  const text = `${review.title ?? ''}\n${review.text ?? ''}`.toLowerCase();
  return (rule.max_rating !== null && review.rating !== null && review.rating <= rule.max_rating) ||
    (rule.sentiments !== null && review.sentiment !== null && rule.sentiments.includes(review.sentiment)) ||
    (rule.keywords !== null && rule.keywords.some((k) => text.includes(k.toLowerCase())));
}
