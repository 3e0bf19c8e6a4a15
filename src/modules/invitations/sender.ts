// The sender: the outbox discipline of webhooks applied to invitation e-mails.
//  1. claim: due invitations are leased in one statement (SKIP LOCKED on PostgreSQL), so two
//     workers never hold the same one; a worker killed mid-batch leaves leases that run out, and
//     its invitations are claimed again (at least once; duplicates at most those in flight).
//  2. decide, in one transaction that holds the guests' rows on PostgreSQL: the stay, guest, rule
//     and survey as they are now say send, wait (the stay's end moved), or cancel with the reason.
//  3. send through the Mailer, several at once, renewing the batch's lease meanwhile; then record
//     sent, or the SMTP answer and the next try on the retry schedule (a permanent 5xx refusal fails
//     at once).
import { baseLanguage } from '../../lib/language-tag.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Log } from '../../lib/log.ts';
import { parseJson } from '../../lib/json.ts';
import type { Mailer } from '../../mail/transport.ts';
import { languagesOf, parseDefinition } from '../surveys/definition.ts';
import { invitationMessage } from './mail.ts';
import { stayEnd } from './planner.ts';
import * as repo from './repository.ts';
import { invitationToken } from './tokens.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const DEFAULT_LEASE_MS = 120_000;
export const DEFAULT_BATCH = 100;

export interface SenderDeps {
  db: Kysely<DB>;
  mailer: Mailer;
  secretKey: Buffer;
  publicUrl: string;
  mailFrom: string;
  retryScheduleS: readonly number[];
  log: Log;
  leaseMs?: number;
  batch?: number;
}

type Decision =
  | { kind: 'send'; language: string; facts: repo.SendFacts }
  | { kind: 'wait'; sendAt: string }
  | { kind: 'cancel'; reason: string };

/** The language of the survey the guest reads best: theirs (or its base language) when the survey has it, else the survey's primary. */
export function invitationLanguage(guestLanguage: string | null, available: readonly string[], primary: string): string {
  if (guestLanguage) {
    const exact = available.find((l) => l.toLowerCase() === guestLanguage.toLowerCase());
    if (exact) return exact;
    const base = baseLanguage(guestLanguage);
    if (available.includes(base)) return base;
  }
  return primary;
}

/** What the sender needs of a survey as published: its languages and how many questions it asks. */
interface PublishedSurvey {
  languages: string[];
  questions: number;
}

/** A survey as published, read once per definition in a batch (its invitations share a few surveys). */
type SurveyOf = (f: repo.SendFacts) => PublishedSurvey;

function surveysOfBatch(): SurveyOf {
  const known = new Map<string | null, PublishedSurvey>();
  return (f) => {
    let survey = known.get(f.published_definition);
    if (!survey) {
      const definition = parseDefinition(parseJson<unknown>(f.published_definition, {}), 'definition');
      survey = { languages: languagesOf(definition, f.primary_language), questions: definition.pages.reduce((n, page) => n + page.questions.length, 0) };
      known.set(f.published_definition, survey);
    }
    return survey;
  };
}

function decide(f: repo.SendFacts, now: number, lastInvitedAt: string | undefined, takenInBatch: boolean, surveyOf: SurveyOf): Decision {
  if (f.survey_status !== 'published') return { kind: 'cancel', reason: repo.SURVEY_UNPUBLISHED };
  // Published without a question (the admin API takes any definition): a guest would get an empty page.
  if (surveyOf(f).questions === 0) return { kind: 'cancel', reason: repo.NO_QUESTIONS };
  if (f.rule_consent === null) return { kind: 'cancel', reason: repo.RULE_REMOVED };
  if (f.stay_status === null || f.email === null) return { kind: 'cancel', reason: 'the stay or the guest was erased' };
  if (f.stay_status !== 'checked_out') return { kind: 'cancel', reason: repo.stayNotEnded(f.stay_status) };
  const end = Date.parse(stayEnd(f) ?? '');
  if (Number.isNaN(end)) return { kind: 'cancel', reason: 'the stay has no end' };
  if (end < now - f.max_age_days! * DAY_MS) return { kind: 'cancel', reason: `the stay ended more than ${f.max_age_days} days ago` };
  const due = end + f.delay_hours! * HOUR_MS;
  if (due > now + 1000) return { kind: 'wait', sendAt: new Date(due).toISOString() };
  if (f.unsubscribed_at !== null || f.marketing_consent === 'withdrawn') return { kind: 'cancel', reason: 'the guest withdrew consent' };
  if (f.rule_consent === 'granted' && f.marketing_consent !== 'granted') return { kind: 'cancel', reason: 'the guest has not granted consent' };
  if (f.cooldown_days! > 0 && (takenInBatch || (lastInvitedAt !== undefined && Date.parse(lastInvitedAt) >= now - f.cooldown_days! * DAY_MS))) {
    return { kind: 'cancel', reason: `the guest was invited within the last ${f.cooldown_days} days` };
  }
  return { kind: 'send', language: invitationLanguage(f.language_code, surveyOf(f).languages, f.primary_language), facts: f };
}

/** Step 2 for a claimed batch: the decisions, written in one transaction. */
async function decideBatch(db: Kysely<DB>, claimed: repo.InvitationRow[], lease: string, now: number): Promise<Map<string, Decision>> {
  return inTransaction(db, async (trx) => {
    const ids = claimed.map((c) => c.id);
    // The guests the stays belong to now (sendFacts reads them so too), each held for the cooldown.
    const guestIds = await repo.currentGuests(trx, ids);
    await repo.lockGuests(trx, guestIds);
    const facts = await repo.sendFacts(trx, ids);
    const longest = Math.max(0, ...facts.map((f) => f.cooldown_days ?? 0));
    const last = longest > 0 ? await repo.lastInvited(trx, guestIds, ids, new Date(now - longest * DAY_MS).toISOString()) : new Map<string, string>();
    const decisions = new Map<string, Decision>();
    const sendingGuests = new Set<string>();
    const surveyOf = surveysOfBatch();
    for (const f of facts) {
      let d: Decision;
      try {
        d = decide(f, now, last.get(f.guest_id), sendingGuests.has(f.guest_id), surveyOf);
      } catch (error) {
        d = { kind: 'cancel', reason: `the survey's definition is invalid: ${(error as Error).message}` };
      }
      if (d.kind === 'send') sendingGuests.add(f.guest_id);
      decisions.set(f.id, d);
    }
    const at = new Date(now).toISOString();
    const byOutcome = new Map<string, string[]>();
    for (const [id, d] of decisions) {
      const key = d.kind === 'send' ? `send:${d.language}` : d.kind === 'cancel' ? `cancel:${d.reason}` : `wait:${d.sendAt}`;
      byOutcome.set(key, [...(byOutcome.get(key) ?? []), id]);
    }
    for (const [key, group] of byOutcome) {
      const [kind, value] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      if (kind === 'send') await repo.startSending(trx, group, lease, value, at);
      else if (kind === 'cancel') await repo.settle(trx, group, lease, { status: 'cancelled', last_error: value, lease_until: null, updated_at: at });
      else await repo.settle(trx, group, lease, { status: 'scheduled', send_at: value, lease_until: null, updated_at: at });
    }
    // An invitation goes to the guest its stay belongs to now: its unsubscribe link and cooldown follow.
    const claimedGuest = new Map(claimed.map((c) => [c.id, c.guest_id]));
    for (const f of facts) {
      if (decisions.get(f.id)?.kind === 'send' && f.guest_id !== claimedGuest.get(f.id)) await repo.settle(trx, [f.id], lease, { guest_id: f.guest_id });
    }
    return decisions;
  });
}

interface Failure { id: string; attempts: number; reason: string; permanent: boolean }

function failureOf(error: unknown): { reason: string; permanent: boolean } {
  const e = error as { response?: string; responseCode?: number; message?: string };
  const reason = (e.response ?? e.message ?? String(error)).replace(/\s+/g, ' ').slice(0, 500);
  return { reason, permanent: typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600 };
}

/** How often a sender also looks for invitations a dead worker left `sending`. */
const ORPHAN_CHECK_MS = 2000;
const nextOrphanCheck = new WeakMap<Kysely<DB>, number>();

/** One pass: claim, decide, send, record. Answers how many invitations it claimed (0: none due). */
export async function sendDueBatch(deps: SenderDeps, now = Date.now()): Promise<number> {
  const { db, mailer } = deps;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const lease = new Date(now + leaseMs).toISOString();
  const at = new Date(now).toISOString();
  const limit = deps.batch ?? DEFAULT_BATCH;
  // Orphans now and then (a dead worker's, after its lease), so a steady backlog of scheduled ones cannot starve them.
  const orphans = now >= (nextOrphanCheck.get(db) ?? 0);
  if (orphans) nextOrphanCheck.set(db, now + ORPHAN_CHECK_MS);
  let claimed = orphans ? await repo.claimDue(db, at, lease, limit, true) : [];
  if (claimed.length < limit) claimed = [...claimed, ...(await repo.claimDue(db, at, lease, limit - claimed.length))];
  if (claimed.length === 0) return 0;
  const decisions = await decideBatch(db, claimed, lease, now);
  const toSend = claimed.filter((c) => decisions.get(c.id)?.kind === 'send');
  const failed: Failure[] = [];
  const domain = new URL(deps.publicUrl).hostname;
  let next = 0;
  const sendOne = async (): Promise<void> => {
    while (next < toSend.length) {
      const invitation = toSend[next++]!;
      const d = decisions.get(invitation.id) as Extract<Decision, { kind: 'send' }>;
      const message = invitationMessage({
        to: d.facts.email!, from: deps.mailFrom, language: d.language, firstName: d.facts.first_name,
        propertyName: d.facts.property_name ?? d.facts.survey_name,
        surveyUrl: `${deps.publicUrl}/s/${invitationToken(deps.secretKey, invitation.id, 'survey')}`,
        unsubscribeUrl: `${deps.publicUrl}/u/${invitationToken(deps.secretKey, invitation.id, 'unsubscribe')}`,
        invitationId: invitation.id, messageDomain: domain,
      });
      try {
        await mailer.send(message);
        hold.sent(invitation.id);
      } catch (error) {
        // This try counted when the invitation was marked sending (repo.startSending).
        failed.push({ id: invitation.id, attempts: invitation.attempts + 1, ...failureOf(error) });
      }
    }
  };
  const hold = holdWhileSending(deps, toSend.map((c) => c.id), lease, leaseMs);
  let unnoted: string[];
  try {
    await Promise.all(Array.from({ length: Math.min(mailer.concurrency, toSend.length) }, sendOne));
  } finally {
    unnoted = await hold.stop();
  }
  await record(deps, unnoted, failed, hold.lease());
  return claimed.length;
}

/** What noting an invitation as sent at `at` writes (while its batch sends, or at its end). */
const sentAt = (at: string) => ({ status: 'sent', sent_at: at, last_error: null, lease_until: null, updated_at: at });

/** How often a sending batch notes the e-mails it has sent so far (see holdWhileSending). */
const SENT_NOTE_MS = 20;

interface Hold {
  /** An e-mail of the batch went out: noted as sent within SENT_NOTE_MS. */
  sent(id: string): void;
  /** The lease the batch's rows hold now. */
  lease(): string;
  /** Stops; answers the sent e-mails not noted yet (for the batch's last write). */
  stop(): Promise<string[]>;
}

/**
 * What a batch does for its rows while it sends, one database write at a time (so a note never
 * names a lease a renewal is replacing):
 * - every third of the lease, the invitations still held get a new lease, and the batch's writes
 *   then name that one. Otherwise a batch that outlived its lease would be taken and sent again by
 *   another worker. Rows whose lease ran out and were taken keep the taker's lease, untouched.
 * - every SENT_NOTE_MS, the e-mails sent since are noted as sent. A worker killed mid-batch then
 *   leaves for the next one to send again only what it had in flight or sent in the last moment,
 *   not the whole batch (surveys.md: a stay is invited at most once, whatever crashes happen).
 * A note that fails (the database away) is tried again with the next one, or in the last write.
 */
function holdWhileSending(deps: SenderDeps, ids: string[], first: string, leaseMs: number): Hold {
  let current = first;
  let unnoted: string[] = [];
  let writes: Promise<void> = Promise.resolve();
  const renew = () => {
    writes = writes.then(async () => {
      const next = new Date(Date.now() + leaseMs).toISOString();
      await repo.renewLease(deps.db, ids, current, next);
      current = next;
    }).catch((error: unknown) => deps.log.warn({ err: error }, 'invitation lease not renewed'));
  };
  const note = () => {
    if (unnoted.length === 0) return;
    writes = writes.then(async () => {
      const noting = unnoted;
      unnoted = [];
      const at = new Date().toISOString();
      try {
        await repo.settle(deps.db, noting, current, sentAt(at));
      } catch (error) {
        unnoted = [...noting, ...unnoted];
        deps.log.warn({ err: error }, 'sent invitations not noted yet');
      }
    });
  };
  const renewal = setInterval(renew, Math.max(10, Math.floor(leaseMs / 3)));
  const noting = setInterval(note, SENT_NOTE_MS);
  return {
    sent: (id) => void unnoted.push(id),
    lease: () => current,
    async stop() {
      clearInterval(renewal);
      clearInterval(noting);
      await writes;
      const rest = unnoted;
      unnoted = [];
      return rest;
    },
  };
}

async function record(deps: SenderDeps, sent: string[], failed: Failure[], lease: string): Promise<void> {
  const at = new Date().toISOString();
  const schedule = deps.retryScheduleS;
  await inTransaction(deps.db, async (trx) => {
    for (let i = 0; i < sent.length; i += 500) {
      await repo.settle(trx, sent.slice(i, i + 500), lease, sentAt(at));
    }
    for (const f of failed) {
      const retryIn = schedule[f.attempts - 1];
      const final = f.permanent || retryIn === undefined;
      await repo.settle(trx, [f.id], lease, final
        ? { status: 'failed', last_error: f.reason, lease_until: null, updated_at: at }
        : { status: 'scheduled', last_error: f.reason, send_at: new Date(Date.now() + retryIn * 1000).toISOString(), lease_until: null, updated_at: at });
    }
  });
  for (const f of failed) deps.log.warn({ invitation: f.id, attempt: f.attempts, reason: f.reason, final: f.permanent || schedule[f.attempts - 1] === undefined }, 'invitation e-mail not sent');
}

/**
 * Sends until nothing is due, in `lanes` batches at once: while one batch waits on its database
 * work (claim, decide, record), the other keeps the SMTP connections busy. Answers how many it claimed.
 */
export async function sendAllDue(deps: SenderDeps, lanes = 2, isStopped: () => boolean = () => false): Promise<number> {
  let claimed = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    for (let n = await sendDueBatch(deps); n > 0 && !isStopped(); n = await sendDueBatch(deps)) claimed += n;
  }));
  return claimed;
}
