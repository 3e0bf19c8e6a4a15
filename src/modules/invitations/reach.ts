// Invitations as a dashboard user sees them: the survey's rules and invitations within the user's
// reach (their node's subtree), and rules they may add or stop there. The operator's view, without
// a reach, is rules.ts.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { lookup } from '../../lib/ids.ts';
import { accountLineages, NOT_WITHIN_REACH } from '../nodes/service.ts';
import { getSurvey } from '../surveys/service.ts';
import * as repo from './repository.ts';
import { createRule, deleteRule, RULE_DEFAULTS, toInvitation, toRule } from './rules.ts';
import type { Invitation, InvitationRule, RuleInput } from './schemas.ts';

export interface InvitationOverview {
  rules: (InvitationRule & { node_name: string })[];
  /** Invitations by state (answered, opened, sent, scheduled, failed, cancelled, sending). */
  counts: Record<string, number>;
  latest: (Invitation & { node_name: string })[];
  /** The nodes of the principal's reach at or below the survey's node, by name: where a new rule may go. */
  nodes: { id: string; name: string }[];
}

/** The survey's rules and invitations within the principal's reach (404 when the survey is out of reach). */
export async function invitationOverview(db: Kysely<DB>, principal: Principal, surveyId: string, latest = 20): Promise<InvitationOverview> {
  const survey = await getSurvey(db, principal, surveyId);
  const [rules, counts, rows, names, lineages] = await Promise.all([
    repo.listSurveyRules(db, survey.id),
    repo.countStates(db, survey.id, principal.subtree),
    repo.latestInReach(db, survey.id, principal.subtree, latest),
    repo.nodeNames(db, principal.accountId),
    accountLineages(db, principal.accountId),
  ]);
  // A rule covers the survey's node or a node below it (rules.ts refuses any other): only those are offered.
  const underSurvey = (id: string) => lineages.get(id)?.includes(survey.node_id) ?? false;
  const name = (id: string) => names.get(id) ?? id;
  return {
    rules: rules.filter((r) => principal.inSubtree(r.node_id)).map((r) => ({ ...toRule(r), node_name: name(r.node_id) })),
    counts,
    latest: rows.map((r) => ({ ...toInvitation(r), node_name: name(r.node_id) })),
    nodes: [...names].filter(([id]) => principal.inSubtree(id) && underSurvey(id)).map(([id, nodeName]) => ({ id, name: nodeName })),
  };
}

/**
 * A rule on a node of the principal's reach, for a survey it sees. A rule the survey already has,
 * alike in every setting, is answered instead of a second one (`created: false`): a form sent twice
 * (a double click, a reload after a lost answer) must not list the same invitations twice. A rule on
 * that node with other settings is refused: it would never apply.
 */
export async function createRuleInReach(db: Kysely<DB>, principal: Principal, surveyId: string, input: RuleInput): Promise<{ rule: InvitationRule; created: boolean }> {
  const survey = await getSurvey(db, principal, surveyId);
  if (!principal.inSubtree(input.node_id)) throw invalid(NOT_WITHIN_REACH);
  const wanted = { ...RULE_DEFAULTS, ...input, node_id: input.node_id.toLowerCase() };
  const onNode = (await repo.listSurveyRules(db, survey.id)).filter((r) => r.node_id === wanted.node_id);
  const same = onNode.find((r) => r.delay_hours === wanted.delay_hours
    && r.consent === wanted.consent && r.max_age_days === wanted.max_age_days && r.cooldown_days === wanted.cooldown_days);
  if (same) return { rule: toRule(same), created: false };
  // Of two rules on one node the older decides (rules.ts), so a second would change nothing: said, not added.
  if (onNode.length > 0) throw invalid('body.node_id already has invitations for this survey with other settings: stop them first, then start them anew');
  return { rule: await createRule(db, survey.id, input), created: true };
}

/** Stops a rule of the principal's reach (404 otherwise). */
export async function deleteRuleInReach(db: Kysely<DB>, principal: Principal, ruleId: string): Promise<void> {
  const rule = await lookup(ruleId, (uuid) => repo.findRule(db, uuid));
  if (!rule || rule.account_id !== principal.accountId || !principal.inSubtree(rule.node_id)) throw notFound('invitation rule');
  await deleteRule(db, rule.id);
}
