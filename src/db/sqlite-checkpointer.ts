// WAL checkpoints of the embedded database, off the event loop. SQLite's automatic checkpoint runs
// inside whichever COMMIT carries the WAL past 1,000 pages: on the one thread that also serves every
// request, it copies those pages into the database file and syncs it, stalling everything else for
// milliseconds (measured: about 60 µs of every guest push). Instead the main connection turns the
// automatic checkpoint off and a worker thread with a connection of its own checkpoints in PASSIVE
// mode on a timer: it never blocks a writer or a reader, and the WAL is recycled once it has been
// copied in full. Durability is unchanged (a checkpoint only moves committed pages), and should the
// worker stop, the main connection takes the automatic checkpoint back.
// A recycled WAL keeps its size on disk, so one burst of large writes would leave a file of that
// size for ever: journal_size_limit truncates it when a writer restarts it, and once a whole tick
// passed without writes the worker truncates it to zero (TRUNCATE, without waiting for locks: it is
// skipped when anyone holds one, and tried again on the next idle tick).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

const INTERVAL_MS = 200;
/** What a recycled WAL is cut back to when a writer restarts it (SQLite keeps the file otherwise). */
export const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;
/** SQLite's own default, restored when the worker is gone. */
const AUTO_CHECKPOINT_PAGES = 1000;

// Plain CommonJS evaluated in the worker, so it needs no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
db.pragma('journal_size_limit = ' + workerData.walLimit);
let lastLog = -1;
// A lock held by another connection (a migration, say) is a reason to wait for the next tick.
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    // The WAL holds frames, all copied, and none came since the last tick: idle, so cut it to zero.
    // busy_timeout 0: a TRUNCATE that finds a reader or writer gives up at once instead of blocking it.
    if (result.busy === 0 && result.log > 0 && result.log === result.checkpointed && result.log === lastLog) {
      db.pragma('busy_timeout = 0');
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.pragma('busy_timeout = 5000');
      }
      lastLog = 0;
    } else {
      lastLog = result.log;
    }
  } catch (error) {
    if (!/^SQLITE_(BUSY|LOCKED)/.test(error.code ?? '')) throw error;
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Runs a last checkpoint and closes the worker's connection. */
  stop(): Promise<void>;
}

export function startCheckpointer(sqlite: SQLite.Database, path: string, onError: (error: Error) => void): Checkpointer | null {
  let worker: Worker;
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, intervalMs: INTERVAL_MS, walLimit: WAL_SIZE_LIMIT_BYTES } });
  } catch (error) {
    onError(error as Error); // the automatic checkpoint stays on
    return null;
  }
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // The timer must not keep a process alive that has nothing else to do.
  worker.unref();
  let running = true;
  const fallBack = () => {
    if (!running) return;
    running = false;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  };
  worker.on('error', (error) => {
    fallBack();
    onError(error);
  });
  worker.on('exit', fallBack);
  return {
    async stop() {
      if (!running) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // now something waits for it
      worker.postMessage('stop');
      await exited;
    },
  };
}
