// Alert rules: a new review under the rule's node subtree that is at or below max_rating, has one
// of the sentiments, or contains one of the keywords (case-insensitive) triggers the rule.
import type { Kysely, Selectable } from 'kysely';
import type { AlertRuleTable, DB, ReviewRow } from '../../db/schema.ts';
import { invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { parseJson } from '../../lib/json.ts';
import { requireAccount } from '../accounts/service.ts';
import { lineageIds, requireAccountNode } from '../nodes/service.ts';
import { insertAlertRule, listAlertRules } from './repository.ts';
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
  await requireAccount(db, accountId);
  const node = await requireAccountNode(db, accountId, input.node_id);
  if (input.max_rating == null && input.sentiments == null && input.keywords == null) {
    throw invalid('an alert rule needs at least one of max_rating, sentiments, keywords');
  }
  const rule: AlertRule = {
    id: newId(), node_id: node.id, max_rating: input.max_rating ?? null,
    sentiments: input.sentiments ?? null, keywords: input.keywords ?? null, created_at: nowIso(),
  };
  await insertAlertRule(db, {
    ...rule, account_id: accountId,
    sentiments: rule.sentiments && JSON.stringify(rule.sentiments), keywords: rule.keywords && JSON.stringify(rule.keywords),
  });
  return rule;
}

/** The rules of the account whose node is the review's node or one of its ancestors, that match it. */
export async function matchingRules(db: Kysely<DB>, review: ReviewRow): Promise<AlertRule[]> {
  const lineage = await lineageIds(db, review.node_id);
  if (lineage.length === 0) return [];
  const rows = await listAlertRules(db, review.account_id, lineage);
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
    (rule.keywords?.some((k) => text.includes(k.toLowerCase())) ?? false);
}
