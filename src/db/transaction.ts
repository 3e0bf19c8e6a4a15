// Transactions that wake background consumers after they commit. A transaction that writes work for
// them (outbox events, a re-queued delivery) says so with wakeAfterCommit(trx); inTransaction()
// then fires the database's CommitSignal once the COMMIT has succeeded (never before, never on a
// rollback). The worker listens to the signal in-process; on PostgreSQL, a process without a
// listener forwards it to other processes as NOTIFY (pg-commits.ts). So every event source,
// present or future, wakes its consumers without a word in any route.
import { EventEmitter } from 'node:events';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, Transaction, UnknownRow } from 'kysely';
import type { DB } from './schema.ts';

/** "Work was committed": emitted after each commit of a transaction that wrote some. */
export class CommitSignal extends EventEmitter {
  /** Transactions under way, and whether each wrote work for a consumer. */
  readonly #open = new WeakMap<object, { wake: boolean }>();

  notify(): void {
    this.emit('committed');
  }

  /** A transaction helper starts a unit of work on `trx` (its transaction or connection). */
  begin(trx: object): void {
    this.#open.set(trx, { wake: false });
  }

  /** Marks the unit under way on `trx`; throws when trx was not opened by a transaction helper. */
  mark(trx: object): void {
    const unit = this.#open.get(trx);
    if (!unit) throw new Error('work for background consumers must be written inside inTransaction() (src/db/transaction.ts), which wakes them after the commit');
    unit.wake = true;
  }

  /** Ends the unit on `trx`; after a commit, notifies when it was marked. */
  end(trx: object, committed: boolean): void {
    const unit = this.#open.get(trx);
    this.#open.delete(trx);
    if (committed && unit?.wake) this.notify();
  }
}

/**
 * Carries a database's CommitSignal on its Kysely instance (connect.ts installs it), so that every
 * transaction and connection of that instance finds the signal. It changes no query and no result.
 */
export class CommitSignalCarrier implements KyselyPlugin {
  constructor(readonly signal: CommitSignal) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The commit signal of the database `db` (or a transaction of it) belongs to. */
function commitSignalOf(db: Kysely<DB>): CommitSignal {
  const carrier = db.getExecutor().plugins.find((p): p is CommitSignalCarrier => p instanceof CommitSignalCarrier);
  if (!carrier) throw new Error('this Kysely instance was not opened by connect() (src/db/connect.ts): it has no commit signal');
  return carrier.signal;
}

/** Runs fn in a transaction; once it has committed, wakes the consumers of the work it wrote. */
export async function inTransaction<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  const signal = commitSignalOf(db);
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
  commitSignalOf(trx).mark(trx);
}
