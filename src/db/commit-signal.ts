// The commit signal of one database: "work for background consumers was committed", emitted after
// each commit of a transaction that wrote some (transaction helpers: inTransaction, a store's own).
import { EventEmitter } from 'node:events';

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
