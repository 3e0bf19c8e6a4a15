// Group commit for guest pushes on SQLite: pushes that arrive while one transaction is running are
// written together in the next one, each inside its own savepoint (so a refused push, 409 or 400,
// rolls back alone), with one COMMIT and one outbox call for the batch. SQLite has a single writer,
// so concurrent pushes queue anyway; sharing the commit saves the per-transaction work and the pages
// several pushes touch are written to the WAL once. The batch holds Kysely's one connection, so no
// other transaction can interleave with it, and runs synchronously apart from the outbox call.
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { appendEvents, type NewEvent } from '../../events/outbox.ts';

interface Pending {
  run(): unknown;
  events(result: unknown): NewEvent[];
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

interface Queue {
  pending: Pending[];
  running: boolean;
  statements: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo', SQLite.Statement>;
}

/** A batch stays small enough that its last push does not wait long for the first. */
const MAX_BATCH = 64;
const queues = new WeakMap<SQLite.Database, Queue>();

function queueOf(sqlite: SQLite.Database): Queue {
  let q = queues.get(sqlite);
  if (!q) {
    q = {
      pending: [],
      running: false,
      statements: {
        begin: sqlite.prepare('begin immediate'),
        commit: sqlite.prepare('commit'),
        rollback: sqlite.prepare('rollback'),
        savepoint: sqlite.prepare('savepoint push'),
        release: sqlite.prepare('release push'),
        undo: sqlite.prepare('rollback to push'),
      },
    };
    queues.set(sqlite, q);
  }
  return q;
}

async function flush(db: Kysely<DB>, sqlite: SQLite.Database, q: Queue): Promise<void> {
  await db.connection().execute(async (conn) => {
    // Taken once the connection is ours: whatever queued while waiting for it joins this batch.
    const batch = q.pending.splice(0, MAX_BATCH);
    const st = q.statements;
    const written: Array<[Pending, unknown]> = [];
    const refused = new Set<Pending>();
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
      const events = written.flatMap(([item, result]) => item.events(result));
      if (events.length > 0) await appendEvents(conn, events, sqlite);
      st.commit.run();
    } catch (error) {
      if (sqlite.inTransaction) st.rollback.run();
      for (const item of batch) if (!refused.has(item)) item.reject(error);
      return;
    }
    for (const [item, result] of written) item.resolve(result);
  });
}

function schedule(db: Kysely<DB>, sqlite: SQLite.Database, q: Queue): void {
  if (q.running || q.pending.length === 0) return;
  q.running = true;
  setImmediate(() => {
    flush(db, sqlite, q)
      // Only reached when the connection itself could not be had: nothing was taken from the queue.
      .catch((error: unknown) => {
        for (const item of q.pending.splice(0)) item.reject(error);
      })
      .finally(() => {
        q.running = false;
        schedule(db, sqlite, q);
      });
  });
}

/**
 * Runs `run` (synchronous better-sqlite3 work) in the next batch transaction and resolves with its
 * result after the COMMIT; `events` are appended to the outbox in that same transaction.
 */
export function inNextBatch<T>(db: Kysely<DB>, sqlite: SQLite.Database, run: () => T, events: (result: T) => NewEvent[]): Promise<T> {
  const q = queueOf(sqlite);
  return new Promise<T>((resolve, reject) => {
    q.pending.push({ run, events: events as (r: unknown) => NewEvent[], resolve: resolve as (r: unknown) => void, reject });
    schedule(db, sqlite, q);
  });
}
