// The retention loop of a worker process (`repute worker`, or `repute serve` with the inline
// worker): once a day, across every worker (src/db/daily-run.ts), deletes the webhook history older
// than WEBHOOK_RETENTION_DAYS (src/modules/webhooks/retention.ts). Off when that is 0.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { claimDailyRun } from '../db/daily-run.ts';
import { outageTracker } from '../db/outage.ts';
import type { DB } from '../db/schema.ts';
import type { Log } from '../lib/log.ts';
import { DAY_MS } from '../lib/time.ts';
import { purgeWebhookHistory, retentionCutoff } from '../modules/webhooks/retention.ts';
import { interruptibleSleep } from './interruptible-sleep.ts';

/** How often the loop asks whether the day's pass is due (another worker may have run it). */
const CHECK_MS = 60_000;

export interface RetentionWorker {
  stop(): Promise<void>;
}

export function startRetentionWorker(deps: { db: Kysely<DB>; log: Log }, config: Pick<Config, 'webhookRetentionDays'>): RetentionWorker {
  const { db, log } = deps;
  const days = config.webhookRetentionDays;
  if (days === 0) return { stop: async () => {} };
  const outage = outageTracker(log, 'retention pass');
  const { sleep, wake } = interruptibleSleep();
  let stopped = false;

  const loop = (async () => {
    while (!stopped) {
      try {
        const now = new Date();
        if (await claimDailyRun(db, 'webhook-retention', now, DAY_MS)) {
          const purged = await purgeWebhookHistory(db, retentionCutoff(now, days));
          // Said at info only when there was something to delete (a fresh start says nothing).
          const level = purged.deliveries + purged.events > 0 ? 'info' : 'debug';
          log[level]({ ...purged, retentionDays: days }, 'retention pass: webhook history older than the retention deleted');
        }
        outage.ok();
      } catch (error) {
        // The day's pass was claimed and did not finish: tomorrow's takes up what is left.
        if (!outage.failed(error)) log.error({ err: error }, 'retention pass failed; the next one takes up what is left');
      }
      if (!stopped) await sleep(CHECK_MS);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
