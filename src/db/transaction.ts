// Transactions that wake background consumers after they commit. A transaction that writes work for
// them (outbox events, a re-queued delivery) says so with wakeAfterCommit(trx); inTransaction()
// then fires the database's CommitSignal once the COMMIT has succeeded (never before, never on a
// rollback). The worker listens to the signal in-process; on PostgreSQL, a process without a
// listener forwards it to other processes as NOTIFY (pg-commits.ts). So every event source,
// present or future, wakes its consumers without a word in any route.
import type { Kysely, Transaction } from 'kysely';
import { adapterOf } from './adapter.ts';
import type { DB } from './schema.ts';

/**
 * PostgreSQL: a webhook endpoint deleted by a transaction that committed while this one fanned an
 * event out to it. The fan-out's statement still saw the endpoint, its foreign-key check no longer
 * finds it, and the whole transaction fails. Run again, the fan-out no longer sees the endpoint
 * (and a ping to it answers 404), so such a transaction is run again rather than answered 500.
 */
function lostEndpointRace(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23503' && e.constraint === 'webhook_deliveries_endpoint_id_fkey';
}

/** How many times a unit of work that lost such a race runs in all. */
const RUNS = 3;

/**
 * Runs `unit` (one transaction, or one statement on its own) again when it lost a race with an
 * endpoint's deletion (lostEndpointRace); so it must do nothing outside the database that it
 * cannot do twice.
 */
export async function runAgainIfEndpointGone<T>(unit: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await unit();
    } catch (error) {
      if (run >= RUNS || !lostEndpointRace(error)) throw error;
    }
  }
}

/**
 * Runs fn in a transaction; once it has committed, wakes the consumers of the work it wrote. Run
 * again when it lost a race with an endpoint's deletion (runAgainIfEndpointGone).
 */
export function inTransaction<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return runAgainIfEndpointGone(() => runOnce(db, fn));
}

async function runOnce<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  const signal = adapterOf(db).commits;
  let unit: Transaction<DB> | null = null;
  try {
    const result = await db.transaction().execute((trx) => {
      unit = trx;
      signal.begin(trx);
      return fn(trx);
    });
    if (unit) signal.end(unit, true);
    return result;
  } catch (error) {
    if (unit) signal.end(unit, false);
    throw error;
  }
}

/** Inside inTransaction: background consumers are woken once this transaction has committed. */
export function wakeAfterCommit(trx: Kysely<DB>): void {
  adapterOf(trx).commits.mark(trx);
}
