// Group commit of attempt results: results are written in batches, one write at a time and at most
// every FLUSH_INTERVAL_MS, so a busy worker makes few, full round trips. A failed write keeps its
// results and tries again shortly (the deliveries' leases still hold).
import type { Outage } from '../db/outage.ts';
import type { Log } from '../lib/log.ts';
import type { AttemptRecord, DeliveryStore } from './store.ts';

const FLUSH_BATCH = 1000;
/** 30 ms rather than 10: a third as many writes under load (about 280 results each), for results shown 20 ms later. */
const FLUSH_INTERVAL_MS = 30;
const RETRY_DELAY_MS = 500;

export interface Recorder {
  add(record: AttemptRecord): void;
  /** Writes everything added so far (a few tries); for shutdown. */
  drain(): Promise<void>;
}

/** autoDisableAfterS: WEBHOOK_AUTO_DISABLE_AFTER_S, handed to every write (0: never disable). */
export function createRecorder(store: DeliveryStore, log: Log, outage: Outage, onWritten: (batch: AttemptRecord[]) => void, autoDisableAfterS = 0): Recorder {
  const results: AttemptRecord[] = [];
  let writing: Promise<void> | null = null;
  let last = 0;
  let draining = false;

  const schedule = () => {
    if (writing || results.length === 0 || draining) return;
    const delay = last + FLUSH_INTERVAL_MS - Date.now();
    writing = new Promise<void>((resolve) => (delay > 0 ? setTimeout(resolve, delay) : setImmediate(resolve)))
      .then(async () => {
        await writeOnce();
      })
      .finally(() => {
        writing = null;
        schedule();
      });
  };

  async function writeOnce(): Promise<boolean> {
    last = Date.now();
    const batch = results.splice(0, FLUSH_BATCH);
    try {
      const disabled = await store.record(batch, autoDisableAfterS);
      // The endpoint shows it too (disabled_reason); the operator hears of it here, once.
      for (const endpoint of disabled) {
        log.warn({ endpoint, setting: 'WEBHOOK_AUTO_DISABLE_AFTER_S', afterS: autoDisableAfterS },
          `webhook endpoint ${endpoint} auto-disabled: every delivery attempt failed for ${autoDisableAfterS} s; PATCH is_active=true re-enables it`);
      }
    } catch (error) {
      results.unshift(...batch);
      last = Date.now() + RETRY_DELAY_MS;
      if (!outage.failed(error)) log.warn({ err: error }, 'webhook worker: recording attempts failed; retrying');
      return false;
    }
    outage.ok();
    onWritten(batch);
    return true;
  }

  return {
    add(record) {
      results.push(record);
      schedule();
    },
    async drain() {
      draining = true;
      await writing;
      for (let tries = 0; results.length > 0 && tries < 5; ) {
        if (!(await writeOnce())) {
          tries += 1;
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
    },
  };
}
