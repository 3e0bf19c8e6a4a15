// Transactions that wake background consumers after they commit. A transaction that writes work for
// them (outbox events, a re-queued delivery) says so with wakeAfterCommit(trx); inTransaction()
// then fires the database's CommitSignal once the COMMIT has succeeded (never before, never on a
// rollback). The worker listens to the signal in-process; on PostgreSQL, a process without a
// listener forwards it to other processes as NOTIFY (pg-commits.ts). So every event source,
// present or future, wakes its consumers without a word in any route.
import type { Kysely, Transaction } from 'kysely';
import { adapterOf } from './adapter.ts';
import type { DB } from './schema.ts';

/** Runs fn in a transaction; once it has committed, wakes the consumers of the work it wrote. */
export async function inTransaction<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
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
