// The statements of survey invitations: rules, the planner's reads and inserts, the sender's claim
// (a lease; SKIP LOCKED on PostgreSQL so two workers never claim the same row), its decisions and
// outcomes, the operator's list, and the pages' look-ups by token hash.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import type { DB, InvitationRuleTable, SurveyInvitationTable } from '../../db/schema.ts';
import type { Insertable, Selectable } from 'kysely';

export type RuleRow = Selectable<InvitationRuleTable>;
export type InvitationRow = Selectable<SurveyInvitationTable>;


// ---- rules ----

/** A survey with the path of its owner node (rules cover that node's subtree at most). */
export async function findSurveyWithPath(db: Kysely<DB>, id: string) {
  return db.selectFrom('surveys as s').innerJoin('nodes as n', 'n.id', 's.node_id')
    .select(['s.id', 's.account_id', 's.status', 'n.path as node_path']).where('s.id', '=', id).executeTakeFirst();
}

export async function insertRule(db: Kysely<DB>, row: RuleRow): Promise<void> {
  await db.insertInto('invitation_rules').values(row).execute();
}

export async function findRule(db: Kysely<DB>, id: string): Promise<RuleRow | undefined> {
  return db.selectFrom('invitation_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSurveyRules(db: Kysely<DB>, surveyId: string): Promise<RuleRow[]> {
  return db.selectFrom('invitation_rules').selectAll().where('survey_id', '=', surveyId).orderBy('created_at').orderBy('id').execute();
}

/** Why an invitation was cancelled when its rule was deleted (Stop); a new rule may invite the stay again. */
export const RULE_REMOVED = 'the invitation rule was removed';
/** Why an invitation was cancelled when its survey was unpublished before sending time. */
export const SURVEY_UNPUBLISHED = 'the survey is not published';
/**
 * A survey published with no question at all: nothing to ask a guest. Not revived: the planner could
 * not tell it from one published again still empty, and would schedule and cancel it every hour.
 */
export const NO_QUESTIONS = 'the survey has no questions';
/** Why an invitation was cancelled when its stay was not (or no longer) checked out at sending time. */
export const stayNotEnded = (status: string): string => `the stay is ${status}`;

/**
 * Cancellations that a later change undoes: the stay checked out again (an extension, a reinstated
 * booking), a new rule for its hotel, the survey published again. The planner schedules such a
 * stay's invitation anew (planner.ts). The others stand: the guest's consent, erasure, the
 * cooldown, a stay too old.
 */
export const revivable = (reason: string | null): boolean =>
  reason === RULE_REMOVED || reason === SURVEY_UNPUBLISHED || reason?.startsWith(stayNotEnded('')) === true;

/** Deletes the rule; its invitations not yet sent are cancelled (those sent keep their history). */
export async function deleteRule(db: Kysely<DB>, id: string, now: string): Promise<void> {
  await db.updateTable('survey_invitations').set({ status: 'cancelled', last_error: RULE_REMOVED, lease_until: null, updated_at: now })
    .where('rule_id', '=', id).where('status', '=', 'scheduled').execute();
  await db.deleteFrom('invitation_rules').where('id', '=', id).execute();
}

/** Every rule of a published survey, with the path of its node (the subtree it covers). */
export async function listActiveRules(db: Kysely<DB>): Promise<(RuleRow & { node_path: string })[]> {
  return db.selectFrom('invitation_rules as r')
    .innerJoin('surveys as s', 's.id', 'r.survey_id')
    .innerJoin('nodes as n', 'n.id', 'r.node_id')
    .selectAll('r').select('n.path as node_path')
    .where('s.status', '=', 'published')
    .execute();
}

// ---- the planner ----

export interface EndedStay {
  id: string;
  account_id: string;
  property_id: string;
  guest_id: string;
  checked_out_at: string | null;
  check_out: string | null;
  updated_at: string;
  language_code: string | null;
}

/**
 * The account's checked-out stays changed at or after `since`, a page at a time in (updated_at, id)
 * order after `after`: one range of the (account, status, updated_at, id) index per page. Which of
 * them have an invitation already is a second look-up (invitedStays), not an anti-join: a planner
 * that has not yet seen the invitations table grow would scan it once per stay.
 */
export async function listEndedStays(
  db: Kysely<DB>, accountId: string, since: string, after: { updated_at: string; id: string } | null, limit: number,
): Promise<EndedStay[]> {
  let query = db.selectFrom('reservations as r')
    .innerJoin('guests as g', 'g.id', 'r.guest_id')
    .select(['r.id', 'r.account_id', 'r.property_id', 'r.guest_id', 'r.checked_out_at', 'r.check_out', 'r.updated_at', 'g.language_code'])
    .where('r.account_id', '=', accountId)
    .where('r.status', '=', 'checked_out')
    .where('r.updated_at', '>=', since);
  if (after) {
    query = query.where((eb) => eb.or([eb('r.updated_at', '>', after.updated_at), eb.and([eb('r.updated_at', '=', after.updated_at), eb('r.id', '>', after.id)])]));
  }
  return query.orderBy('r.updated_at').orderBy('r.id').limit(limit).execute();
}

/** The invitation each of these stays has already, by stay: its id, status and why it was cancelled. */
export async function invitedStays(db: Kysely<DB>, stayIds: readonly string[]): Promise<Map<string, { id: string; status: string; last_error: string | null }>> {
  if (stayIds.length === 0) return new Map();
  const rows = await db.selectFrom('survey_invitations').select(['reservation_id', 'id', 'status', 'last_error']).where('reservation_id', 'in', stayIds).execute();
  return new Map(rows.map((r) => [r.reservation_id, { id: r.id, status: r.status, last_error: r.last_error }]));
}

/**
 * Schedules again an invitation cancelled for a reason a later change undid (revivable), under the
 * rule that covers its stay now. Only while it is still cancelled so: never one sent, never twice.
 */
export async function reviveInvitation(db: Kysely<DB>, id: string, changes: { survey_id: string; rule_id: string; send_at: string; updated_at: string }): Promise<boolean> {
  const result = await db.updateTable('survey_invitations')
    .set({ ...changes, status: 'scheduled', last_error: null, lease_until: null, attempts: 0 })
    .where('id', '=', id).where('status', '=', 'cancelled').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The guest each invitation's stay belongs to now (a stay moves to the guest of a later push). */
export async function currentGuests(db: Kysely<DB>, ids: readonly string[]): Promise<string[]> {
  const rows = await db.selectFrom('survey_invitations as i').innerJoin('reservations as r', 'r.id', 'i.reservation_id')
    .select('r.guest_id').distinct().where('i.id', 'in', ids).execute();
  return rows.map((r) => r.guest_id);
}

/**
 * PostgreSQL plans the sender's claims with fresh row counts. Autovacuum analyzes a grown table only
 * a minute or so later; until then a table that went from empty to 100,000 invitations in one pass
 * still looks empty, and each claim scans it instead of taking the due index.
 */
export async function refreshStatistics(db: Kysely<DB>): Promise<void> {
  if (isPostgres(db)) await sql`analyze survey_invitations`.execute(db);
}

/** Inserts planned invitations; a stay that has one already keeps it (at most one per stay). */
export async function insertInvitations(db: Kysely<DB>, rows: Insertable<SurveyInvitationTable>[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db.insertInto('survey_invitations').values(rows).onConflict((oc) => oc.column('reservation_id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

// ---- the sender ----

/**
 * Leases up to `limit` due invitations until `leaseUntil`: `scheduled` ones
 * due by `now` (oldest first: one range of the (status, send_at) index), or with `orphans`, ones left
 * `sending` by a worker that died (its lease ran out). The lease value marks the claim: the outcome
 * is written only where it still holds. SKIP LOCKED on PostgreSQL: two workers never take the same.
 */
export async function claimDue(db: Kysely<DB>, now: string, leaseUntil: string, limit: number, orphans = false): Promise<InvitationRow[]> {
  let due = orphans
    ? db.selectFrom('survey_invitations').select('id').where('status', '=', 'sending').where('lease_until', '<', now).limit(limit)
    : db.selectFrom('survey_invitations').select('id')
      .where('status', '=', 'scheduled')
      .where('send_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('send_at')
      .limit(limit);
  if (isPostgres(db)) due = due.forUpdate().skipLocked();
  return db.updateTable('survey_invitations')
    .set({ lease_until: leaseUntil, updated_at: now })
    .where('id', 'in', due)
    .returningAll()
    .execute();
}

/** What the sender checks before sending: the stay, guest, rule and survey as they are now. */
export interface SendFacts {
  id: string;
  guest_id: string;
  delay_hours: number | null;
  stay_status: string | null;
  checked_out_at: string | null;
  check_out: string | null;
  email: string | null;
  first_name: string | null;
  language_code: string | null;
  marketing_consent: string | null;
  unsubscribed_at: string | null;
  rule_consent: string | null;
  max_age_days: number | null;
  cooldown_days: number | null;
  survey_status: string;
  survey_name: string;
  primary_language: string;
  published_definition: string | null;
  property_name: string | null;
}

export async function sendFacts(db: Kysely<DB>, ids: readonly string[]): Promise<SendFacts[]> {
  return db.selectFrom('survey_invitations as i')
    .innerJoin('surveys as s', 's.id', 'i.survey_id')
    .leftJoin('reservations as r', 'r.id', 'i.reservation_id')
    // The stay's guest as it is now: a later push may have moved the stay to another guest (the traveller, not the booker).
    .leftJoin('guests as g', 'g.id', 'r.guest_id')
    .leftJoin('invitation_rules as ru', 'ru.id', 'i.rule_id')
    .leftJoin('nodes as n', 'n.id', 'i.node_id')
    .select((eb) => [
      'i.id', eb.fn.coalesce('r.guest_id', 'i.guest_id').as('guest_id'), 'ru.delay_hours', 'r.status as stay_status', 'r.checked_out_at', 'r.check_out', 'g.email', 'g.first_name', 'g.language_code',
      'g.marketing_consent', 'g.unsubscribed_at', 'ru.consent as rule_consent', 'ru.max_age_days', 'ru.cooldown_days',
      's.status as survey_status', 's.name as survey_name', 's.primary_language', 's.published_definition', 'n.name as property_name',
    ])
    .where('i.id', 'in', ids)
    .execute();
}

/** On PostgreSQL, holds the guests' rows until the transaction ends, so two workers decide one guest's cooldown in turn. */
export async function lockGuests(db: Kysely<DB>, guestIds: readonly string[]): Promise<void> {
  if (!isPostgres(db) || guestIds.length === 0) return;
  await db.selectFrom('guests').select('id').where('id', 'in', [...guestIds].sort()).orderBy('id').forUpdate().execute();
}

/**
 * When each of these guests was last invited (sent, or being sent under another claim) since
 * `since`, by an invitation other than these.
 */
export async function lastInvited(db: Kysely<DB>, guestIds: readonly string[], excludeIds: readonly string[], since: string): Promise<Map<string, string>> {
  if (guestIds.length === 0) return new Map();
  let query = db.selectFrom('survey_invitations').select(['guest_id', (eb) => eb.fn.max(eb.fn.coalesce('sent_at', 'updated_at')).as('at')])
    .where('guest_id', 'in', guestIds)
    .where((eb) => eb.or([
      eb.and([eb('status', '=', 'sent'), eb('sent_at', '>=', since)]),
      eb.and([eb('status', '=', 'sending'), eb('updated_at', '>=', since)]),
    ]))
    .groupBy('guest_id');
  if (excludeIds.length > 0) query = query.where('id', 'not in', excludeIds);
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.guest_id, String(r.at)]));
}

/** Writes an outcome to claimed invitations whose lease is still `lease` (a later claim wins). */
/** Moves the lease of the invitations still holding `lease` to `next` (the batch's writes then name `next`). */
export async function renewLease(db: Kysely<DB>, ids: readonly string[], lease: string, next: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db.updateTable('survey_invitations').set({ lease_until: next }).where('id', 'in', ids.slice(i, i + 500)).where('lease_until', '=', lease).execute();
  }
}

/**
 * Marks claimed invitations as being sent in `language`, counting the try (a claim that only decides
 * to wait or cancel is no try). Only where the lease is still `lease`.
 */
export async function startSending(db: Kysely<DB>, ids: readonly string[], lease: string, language: string, at: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('survey_invitations').set((eb) => ({ status: 'sending', language, updated_at: at, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', ids).where('lease_until', '=', lease).execute();
}

export async function settle(db: Kysely<DB>, ids: readonly string[], lease: string, changes: Partial<InvitationRow>): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('survey_invitations').set(changes).where('id', 'in', ids).where('lease_until', '=', lease).execute();
}

// ---- the operator's list and the pages ----

export async function listSurveyInvitations(
  db: Kysely<DB>, surveyId: string, status: string | undefined, after: { created_at: string; id: string } | null, limit: number,
): Promise<InvitationRow[]> {
  let query = db.selectFrom('survey_invitations').selectAll().where('survey_id', '=', surveyId);
  if (status !== undefined) query = query.where('status', '=', status);
  if (after) {
    query = query.where((eb) => eb.or([eb('created_at', '<', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

/** The survey's invitations at these nodes, by state (answered, else opened, else the status). */
export async function countStates(db: Kysely<DB>, surveyId: string, nodeIds: readonly string[]): Promise<Record<string, number>> {
  if (nodeIds.length === 0) return {};
  const rows = await db.selectFrom('survey_invitations')
    .select((eb) => [
      eb.case().when('answered_at', 'is not', null).then('answered').when('opened_at', 'is not', null).then('opened').else(eb.ref('status')).end().as('state'),
      eb.fn.countAll<number>().as('n'),
    ])
    .where('survey_id', '=', surveyId).where('node_id', 'in', nodeIds)
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [String(r.state), Number(r.n)]));
}

export async function latestInReach(db: Kysely<DB>, surveyId: string, nodeIds: readonly string[], limit: number): Promise<InvitationRow[]> {
  if (nodeIds.length === 0) return [];
  return db.selectFrom('survey_invitations').selectAll().where('survey_id', '=', surveyId).where('node_id', 'in', nodeIds)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function nodeNames(db: Kysely<DB>, accountId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('nodes').select(['id', 'name']).where('account_id', '=', accountId).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function findBySurveyToken(db: Kysely<DB>, hash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('survey_invitations').selectAll().where('survey_token_hash', '=', hash).executeTakeFirst();
}

export async function findByUnsubscribeToken(db: Kysely<DB>, hash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('survey_invitations').selectAll().where('unsubscribe_token_hash', '=', hash).executeTakeFirst();
}

export async function updateInvitation(db: Kysely<DB>, id: string, changes: Partial<InvitationRow>): Promise<void> {
  await db.updateTable('survey_invitations').set(changes).where('id', '=', id).execute();
}
