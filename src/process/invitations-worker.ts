// The invitations loop of a worker process (`repute worker`, or `repute serve` with the inline
// worker): plans invitations for stays that ended (planner.ts) and sends those due (sender.ts),
// woken by commits (a guest push, a new rule) or a poll. Without SMTP_URL (and no MAIL_DIR) it
// still plans, so the operator sees what would go out, and says once that nothing is sent.
import type { Kysely } from 'kysely';
import type { CommitSignal } from '../db/commit-signal.ts';
import { interruptibleSleep } from './interruptible-sleep.ts';
import { outageTracker } from '../db/outage.ts';
import type { DB } from '../db/schema.ts';
import type { Log } from '../lib/log.ts';
import { createMailer, type MailSettings } from '../mail/transport.ts';
import { newPlannerState, planInvitations } from '../modules/invitations/planner.ts';
import { sendAllDue } from '../modules/invitations/sender.ts';

const POLL_MS = 1000;
/** Planning reads stays changed since the last pass; more often than this would only re-read them. */
const PLAN_EVERY_MS = 2000;
/** A burst of commits (an import, a load test) plans at most this often. */
const MIN_PLAN_GAP_MS = 250;

export interface InvitationsWorkerOptions extends MailSettings {
  secretKey: Buffer;
  publicUrl: string;
  mailFrom: string;
  mailRetryScheduleS: readonly number[];
  /** How long a claimed invitation stays leased (MAIL_LEASE_S). */
  mailLeaseS: number;
}

export interface InvitationsWorker {
  wake(): void;
  stop(): Promise<void>;
}

export function startInvitationsWorker(deps: { db: Kysely<DB>; commits: CommitSignal; log: Log }, options: InvitationsWorkerOptions): InvitationsWorker {
  const { db, log } = deps;
  const mailer = createMailer(options);
  if (mailer) log.info({ target: mailer.target }, `survey invitations: e-mails go to ${mailer.target}`);
  else log.warn({}, 'survey invitations: SMTP_URL is not set, so no invitation e-mail is sent (they are planned and wait; set SMTP_URL to send them)');
  const planner = newPlannerState();
  const outage = outageTracker(log, 'invitations worker');
  let stopped = false;
  let nextPlan = 0;
  let lastPlan = 0;

  const { sleep, wake } = interruptibleSleep();

  const loop = (async () => {
    while (!stopped) {
      try {
        // Whether this pass asked the database anything: a pass that did not says nothing of an
        // outage, and must not report the database answering again while it is still away.
        let asked = false;
        if (Date.now() >= nextPlan) {
          lastPlan = Date.now();
          nextPlan = lastPlan + PLAN_EVERY_MS;
          asked = true;
          await planInvitations(db, options.secretKey, planner);
        }
        if (mailer) {
          asked = true;
          const senderDeps = {
            db, mailer, secretKey: options.secretKey, publicUrl: options.publicUrl, mailFrom: options.mailFrom,
            retryScheduleS: options.mailRetryScheduleS, log, leaseMs: options.mailLeaseS * 1000,
          };
          await sendAllDue(senderDeps, 2, () => stopped);
        }
        if (asked) outage.ok();
      } catch (error) {
        if (!outage.failed(error)) log.error({ err: error }, 'invitations worker: a pass failed; retrying');
      }
      if (!stopped) await sleep(Math.max(10, Math.min(POLL_MS, nextPlan - Date.now())));
    }
  })();

  const onCommit = () => {
    // A commit may be a push that checked a stay out: plan soon.
    nextPlan = Math.min(nextPlan, lastPlan + MIN_PLAN_GAP_MS);
    wake();
  };
  deps.commits.on('committed', onCommit);
  return {
    wake: onCommit,
    async stop() {
      stopped = true;
      deps.commits.off('committed', onCommit);
      wake();
      await loop;
      mailer?.close();
    },
  };
}
