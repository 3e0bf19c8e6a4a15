// The planner: turns ended stays into scheduled invitations. It reads the stays guest pushes have
// set to checked_out (their updated_at moves with every push), gives each the rule of the deepest
// node covering its property, and inserts one invitation per stay, due `delay_hours` after the
// stay's end. Whether it is still wanted (consent, erasure, cooldown, a cancelled stay) is decided
// when it is sent (sender.ts), so a plan never goes stale.
//
// What it reads each pass: stays changed since its previous pass began, less an overlap that covers
// a push stamped before and committed after that moment. A new rule, a restarted worker and an hourly
// sweep read every stay changed within the rules' max_age_days instead, so nothing is missed
// however long the worker was down. Inserts skip stays that have an invitation already (unique
// reservation_id): passes may overlap and workers may run side by side. An invitation cancelled for
// a reason since undone (the stay checked out again, a new rule after Stop: repository.ts
// revivable) is scheduled again in place, never one that was sent.
import type { Insertable, Kysely } from 'kysely';
import type { DB, SurveyInvitationTable } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { listAccountNodePaths } from '../nodes/repository.ts';
import { secretTokenHash } from '../../lib/secret-token.ts';
import * as repo from './repository.ts';
import { invitationToken } from './tokens.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A push stamped before a pass began commits within this (pushes are single statements). */
const OVERLAP_MS = 2 * 60_000;
const FULL_SWEEP_EVERY_MS = HOUR_MS;
const PAGE = 1000;
const INSERT_CHUNK = 500;
/** A pass that scheduled this many refreshes the table's statistics (repo.refreshStatistics). */
const ANALYZE_AFTER = 5000;

export interface PlannerState {
  /** When the previous pass began; null before the first. */
  lastPassAt: number | null;
  nextFullSweepAt: number;
  knownRules: Set<string>;
}

export const newPlannerState = (): PlannerState => ({ lastPassAt: null, nextFullSweepAt: 0, knownRules: new Set() });

type ActiveRule = repo.RuleRow & { node_path: string };

/** The rule that invites a stay at this property ending then: the deepest covering node, then the oldest rule. */
export function ruleFor(rules: readonly ActiveRule[], propertyPath: string, endMs: number, now: number): ActiveRule | undefined {
  let best: ActiveRule | undefined;
  for (const rule of rules) {
    if (!propertyPath.startsWith(rule.node_path) || endMs < now - rule.max_age_days * DAY_MS) continue;
    if (!best || rule.node_path.length > best.node_path.length
      || (rule.node_path.length === best.node_path.length && (rule.created_at < best.created_at || (rule.created_at === best.created_at && rule.id < best.id)))) {
      best = rule;
    }
  }
  return best;
}

/** The stay's end: when it was checked out, else its check-out date. */
export const stayEnd = (stay: { checked_out_at: string | null; check_out: string | null }): string | null => stay.checked_out_at ?? stay.check_out;

/** One planning pass; answers how many invitations it scheduled. */
export async function planInvitations(db: Kysely<DB>, secretKey: Buffer, state: PlannerState, now = Date.now()): Promise<number> {
  const rules = await repo.listActiveRules(db);
  const fullSweep = state.lastPassAt === null || now >= state.nextFullSweepAt;
  const byAccount = new Map<string, ActiveRule[]>();
  for (const rule of rules) byAccount.set(rule.account_id, [...(byAccount.get(rule.account_id) ?? []), rule]);
  let scheduled = 0;
  for (const [accountId, accountRules] of byAccount) {
    const sweep = fullSweep || accountRules.some((r) => !state.knownRules.has(r.id));
    const since = sweep ? now - Math.max(...accountRules.map((r) => r.max_age_days)) * DAY_MS : state.lastPassAt! - OVERLAP_MS;
    scheduled += await planAccount(db, secretKey, accountId, accountRules, new Date(since).toISOString(), now);
  }
  if (scheduled >= ANALYZE_AFTER) await repo.refreshStatistics(db);
  state.lastPassAt = now;
  if (fullSweep) state.nextFullSweepAt = now + FULL_SWEEP_EVERY_MS;
  state.knownRules = new Set(rules.map((r) => r.id));
  return scheduled;
}

async function planAccount(db: Kysely<DB>, secretKey: Buffer, accountId: string, rules: ActiveRule[], since: string, now: number): Promise<number> {
  const paths = new Map((await listAccountNodePaths(db, accountId)).map((n) => [n.id, n.path]));
  const nowIso = new Date(now).toISOString();
  let scheduled = 0;
  let after: { updated_at: string; id: string } | null = null;
  for (;;) {
    const stays = await repo.listEndedStays(db, accountId, since, after, PAGE);
    if (stays.length === 0) break;
    after = { updated_at: stays.at(-1)!.updated_at, id: stays.at(-1)!.id };
    const invited = await repo.invitedStays(db, stays.map((s) => s.id));
    const rows: Insertable<SurveyInvitationTable>[] = [];
    for (const stay of stays) {
      const existing = invited.get(stay.id);
      // One invitation per stay; one cancelled for a reason since undone (revivable) is scheduled again.
      if (existing && !(existing.status === 'cancelled' && repo.revivable(existing.last_error))) continue;
      const end = stayEnd(stay);
      const endMs = end === null ? Number.NaN : Date.parse(end);
      const path = paths.get(stay.property_id);
      if (Number.isNaN(endMs) || path === undefined) continue;
      const rule = ruleFor(rules, path, endMs, now);
      if (!rule) continue;
      const sendAt = new Date(endMs + rule.delay_hours * HOUR_MS).toISOString();
      if (existing) {
        if (await repo.reviveInvitation(db, existing.id, { survey_id: rule.survey_id, rule_id: rule.id, send_at: sendAt, updated_at: nowIso })) scheduled += 1;
        continue;
      }
      const id = newId();
      rows.push({
        id, account_id: accountId, survey_id: rule.survey_id, rule_id: rule.id, reservation_id: stay.id, guest_id: stay.guest_id,
        node_id: stay.property_id, language: stay.language_code ?? '', status: 'scheduled',
        survey_token_hash: secretTokenHash(invitationToken(secretKey, id, 'survey')),
        unsubscribe_token_hash: secretTokenHash(invitationToken(secretKey, id, 'unsubscribe')),
        send_at: sendAt, attempts: 0,
        created_at: nowIso, updated_at: nowIso,
      });
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) scheduled += await repo.insertInvitations(db, rows.slice(i, i + INSERT_CHUNK));
    if (stays.length < PAGE) break;
  }
  return scheduled;
}
