// The operator's side of invitations: rules (turn invitations on for a published survey and a node
// subtree, or stop them) and the list of a survey's invitations with their states.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { inTransaction, wakeAfterCommit } from '../../db/transaction.ts';
import { adminPage, decodeAdminCursor } from '../../http/admin-cursor.ts';
import { conflict, invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccountNode } from '../nodes/service.ts';
import * as repo from './repository.ts';
import type { ConsentMode, Invitation, InvitationListQuery, InvitationRule, RuleInput } from './schemas.ts';

export const RULE_DEFAULTS = { consent: 'granted' as ConsentMode, max_age_days: 14, cooldown_days: 30 };

export const toRule = (row: repo.RuleRow): InvitationRule => ({
  id: row.id, account_id: row.account_id, survey_id: row.survey_id, node_id: row.node_id, delay_hours: row.delay_hours,
  consent: row.consent as ConsentMode, max_age_days: row.max_age_days, cooldown_days: row.cooldown_days, created_at: row.created_at,
});

export function toInvitation(row: repo.InvitationRow): Invitation {
  const state = row.answered_at ? 'answered' : row.opened_at ? 'opened' : row.status;
  return {
    id: row.id, survey_id: row.survey_id, rule_id: row.rule_id, reservation_id: row.reservation_id, guest_id: row.guest_id,
    node_id: row.node_id, language: row.language, status: row.status as Invitation['status'], state: state as Invitation['state'],
    send_at: row.send_at, attempts: row.attempts, last_error: row.last_error, sent_at: row.sent_at, opened_at: row.opened_at,
    answered_at: row.answered_at, response_id: row.response_id, created_at: row.created_at,
  };
}

/** Turns invitations on: the survey must be published, the node the survey's own or below it. */
export async function createRule(db: Kysely<DB>, surveyId: string, input: RuleInput): Promise<InvitationRule> {
  return inTransaction(db, async (trx) => {
    const survey = await lookup(surveyId, (uuid) => repo.findSurveyWithPath(trx, uuid));
    if (!survey) throw notFound('survey');
    if (survey.status !== 'published') throw conflict('the survey is a draft: publish it before turning invitations on');
    const node = await requireAccountNode(trx, survey.account_id, input.node_id);
    if (!node.path.startsWith(survey.node_path)) throw invalid('body.node_id must be the survey\'s node or a node below it');
    const maxAgeDays = input.max_age_days ?? RULE_DEFAULTS.max_age_days;
    // A stay that ended longer ago than max_age_days is never invited: a longer delay would never send.
    if (input.delay_hours > maxAgeDays * 24) {
      throw invalid(`body.delay_hours must be at most max_age_days × 24 (${maxAgeDays * 24}): a stay that ended more than ${maxAgeDays} days ago is never invited`);
    }
    const row: repo.RuleRow = {
      id: newId(), account_id: survey.account_id, survey_id: survey.id, node_id: node.id, delay_hours: input.delay_hours,
      consent: input.consent ?? RULE_DEFAULTS.consent, max_age_days: maxAgeDays,
      cooldown_days: input.cooldown_days ?? RULE_DEFAULTS.cooldown_days, created_at: nowIso(),
    };
    await repo.insertRule(trx, row);
    // Workers plan the new rule's stays when this commits, not at their next poll.
    wakeAfterCommit(trx);
    return toRule(row);
  });
}

export async function listRules(db: Kysely<DB>, surveyId: string): Promise<{ data: InvitationRule[] }> {
  const survey = await lookup(surveyId, (uuid) => repo.findSurveyWithPath(db, uuid));
  if (!survey) throw notFound('survey');
  return { data: (await repo.listSurveyRules(db, survey.id)).map(toRule) };
}

/** Stops a rule: invitations it scheduled and not yet sent are cancelled. */
export async function deleteRule(db: Kysely<DB>, id: string): Promise<{ id: string; deleted: true }> {
  return inTransaction(db, async (trx) => {
    const row = await lookup(id, (uuid) => repo.findRule(trx, uuid));
    if (!row) throw notFound('invitation rule');
    await repo.deleteRule(trx, row.id, nowIso());
    return { id: row.id, deleted: true as const };
  });
}

/** A survey's invitations, newest first, keyset-paged. */
export async function listInvitations(db: Kysely<DB>, surveyId: string, query: InvitationListQuery) {
  const survey = await lookup(surveyId, (uuid) => repo.findSurveyWithPath(db, uuid));
  if (!survey) throw notFound('survey');
  const limit = query.limit ?? 100;
  return adminPage(await repo.listSurveyInvitations(db, survey.id, query.status, decodeAdminCursor(query.cursor), limit), limit, toInvitation);
}
