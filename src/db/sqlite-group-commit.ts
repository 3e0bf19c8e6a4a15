// Group commit on SQLite: units of synchronous better-sqlite3 work that arrive while one transaction
// is running are written together in the next one, each inside its own savepoint (so a refused unit
// rolls back alone), then `finish` runs once for the batch (e.g. one outbox append) and one COMMIT
// ends it. SQLite has a single writer, so concurrent writes queue anyway; sharing the commit saves
// the per-transaction work and the pages several units touch are written to the WAL once. The batch
// holds Kysely's one connection, so no other transaction can interleave with it, and runs
// synchronously apart from `finish`. Work that `finish` marks (wakeAfterCommit) wakes its consumers
// after the COMMIT, as inTransaction does.
import type { Kysely } from 'kysely';
import type { SqliteDatabase } from './connect.ts';
import type { DB } from './schema.ts';

/** A batch stays small enough that its last unit does not wait long for the first. */
const MAX_BATCH = 64;

interface Pending<R> {
  run(): unknown;
  results(value: unknown): R[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export type GroupCommit<R> = <T>(run: () => T, results: (value: T) => R[]) => Promise<T>;

/**
 * A queue of units on this database; `finish` gets, inside the batch's transaction, what every
 * unit's `results` returned. The returned function runs `run` in the next batch and resolves with
 * its value after the COMMIT.
 */
export function sqliteGroupCommit<R>({ db, sqlite, commits }: SqliteDatabase, finish: (conn: Kysely<DB>, results: R[]) => Promise<void>): GroupCommit<R> {
  const pending: Array<Pending<R>> = [];
  let running = false;
  const st = {
    begin: sqlite.prepare('begin immediate'),
    commit: sqlite.prepare('commit'),
    rollback: sqlite.prepare('rollback'),
    savepoint: sqlite.prepare('savepoint unit'),
    release: sqlite.prepare('release unit'),
    undo: sqlite.prepare('rollback to unit'),
  };

  const flush = () => db.connection().execute(async (conn) => {
    // Taken once the connection is ours: whatever queued while waiting for it joins this batch.
    const batch = pending.splice(0, MAX_BATCH);
    const written: Array<[Pending<R>, unknown]> = [];
    const refused = new Set<Pending<R>>();
    commits.begin(conn);
    try {
      st.begin.run();
      for (const item of batch) {
        st.savepoint.run();
        try {
          written.push([item, item.run()]);
          st.release.run();
        } catch (error) {
          refused.add(item);
          item.reject(error);
          st.undo.run();
          st.release.run();
        }
      }
      const results = written.flatMap(([item, value]) => item.results(value));
      if (results.length > 0) await finish(conn, results);
      st.commit.run();
    } catch (error) {
      commits.end(conn, false);
      if (sqlite.inTransaction) st.rollback.run();
      for (const item of batch) if (!refused.has(item)) item.reject(error);
      return;
    }
    commits.end(conn, true);
    for (const [item, value] of written) item.resolve(value);
  });

  const schedule = (): void => {
    if (running || pending.length === 0) return;
    running = true;
    setImmediate(() => {
      flush()
        // Only reached when the connection itself could not be had: nothing was taken from the queue.
        .catch((error: unknown) => {
          for (const item of pending.splice(0)) item.reject(error);
        })
        .finally(() => {
          running = false;
          schedule();
        });
    });
  };

  return <T>(run: () => T, results: (value: T) => R[]) => new Promise<T>((resolve, reject) => {
    pending.push({ run, results: results as (value: unknown) => R[], resolve: resolve as (value: unknown) => void, reject });
    schedule();
  });
}
