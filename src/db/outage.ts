// For a background loop that keeps retrying the database (a worker's claims, a LISTEN connection):
// says once that it paused because the database is unavailable and once that it resumed, instead
// of a warning at every try of the outage.
import type { Log } from '../lib/log.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/** The part of the shared logger an outage tracker writes to. */
export type OutageLog = Pick<Log, 'info' | 'warn'>;

export interface Outage {
  /** After a failed try: true when the database is unavailable (the first of an outage is logged); false for any other error. */
  failed(error: unknown): boolean;
  /** After a try that reached the database: ends an outage, if one was going on (logged). */
  ok(): void;
}

export function outageTracker(log: OutageLog, who: string): Outage {
  let since: number | null = null;
  return {
    failed(error) {
      if (!isDatabaseUnavailable(error)) return false;
      if (since === null) {
        since = Date.now();
        log.warn({ err: error }, `${who} paused: the database is unavailable; retrying until it answers`);
      }
      return true;
    },
    ok() {
      if (since === null) return;
      log.info({ pausedMs: Date.now() - since }, `${who} resumed: the database answers again`);
      since = null;
    },
  };
}
