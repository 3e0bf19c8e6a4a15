// The insights loop of a worker process (`repute worker`, or `repute serve` with the inline worker):
// reads queued reviews with the engine as soon as a commit wakes it (or a poll, for writes by other
// processes on SQLite), and runs the daily recommendation pass when it is due. The engine's
// lexicons load once, when the loop starts.
import type { Kysely } from 'kysely';
import type { CommitSignal } from '../db/commit-signal.ts';
import { interruptibleSleep } from './interruptible-sleep.ts';
import { outageTracker } from '../db/outage.ts';
import type { DB } from '../db/schema.ts';
import { createExtractor } from '../extraction/index.ts';
import type { Log } from '../lib/log.ts';
import { extractDueBatch } from '../modules/insights/extraction.ts';
import { refreshRecommendationsIfDue } from '../modules/insights/recommendations.ts';

const POLL_MS = 1000;
/** How often the loop asks whether the daily recommendation pass is due. */
const RECOMMENDATION_CHECK_MS = 60_000;

export interface InsightsWorker {
  wake(): void;
  stop(): Promise<void>;
}

export function startInsightsWorker(deps: { db: Kysely<DB>; commits: CommitSignal; log: Log }): InsightsWorker {
  const { db, log } = deps;
  const extractor = createExtractor();
  const outage = outageTracker(log, 'insights worker');
  let stopped = false;
  let nextRecommendationCheck = 0;

  const { sleep, wake } = interruptibleSleep();

  const loop = (async () => {
    while (!stopped) {
      try {
        let took = await extractDueBatch({ db, extractor, log });
        while (took > 0 && !stopped) took = await extractDueBatch({ db, extractor, log });
        if (Date.now() >= nextRecommendationCheck) {
          nextRecommendationCheck = Date.now() + RECOMMENDATION_CHECK_MS;
          await refreshRecommendationsIfDue(db, new Date());
        }
        outage.ok();
      } catch (error) {
        if (!outage.failed(error)) log.error({ err: error }, 'insights worker: a batch failed; retrying');
      }
      if (!stopped) await sleep(POLL_MS);
    }
  })();

  deps.commits.on('committed', wake);
  return {
    wake,
    async stop() {
      stopped = true;
      deps.commits.off('committed', wake);
      wake();
      await loop;
    },
  };
}
