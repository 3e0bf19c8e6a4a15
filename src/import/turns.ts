// Turn-taking with a live server on SQLite. SQLite has one writer and no queue: a connection that
// finds the database locked sleeps in its busy handler and polls again (after 1, 2, 5 … ms, then every
// 100 ms), so a process that commits and begins again at once, as the import does, wins nearly every
// race, and the server beside it waited up to a second between turns (measured: 8 turns in a 3 s
// import). Once another connection has committed in the last second (PRAGMA data_version changes),
// the import pauses after each of its writes for as long as the write took (at most MAX_PAUSE_MS: a
// write that waited long for the server's lock does not stall the import as long again): it holds the
// database about half the time, and a waiting writer's next poll lands in a pause. Alone, it never pauses.
// PostgreSQL queues lock waiters fairly by itself.
import { setTimeout } from 'node:timers/promises';
import type { Database } from '../db/connect.ts';

/** How long after another connection's last commit the import keeps taking turns. */
const SHARED_FOR_MS = 1000;
/** The longest pause; longer than SQLite's longest busy-handler sleep (100 ms), so a waiter's poll still lands in it. */
const MAX_PAUSE_MS = 250;

/** Runs each write, then waits its turn when the database is shared. */
export type TakeTurns = <T>(write: () => Promise<T>) => Promise<T>;

export function takeTurns(database: Database): TakeTurns {
  if (database.dialect !== 'sqlite') return (write) => write();
  const { sqlite } = database;
  const version = () => sqlite.pragma('data_version', { simple: true }) as number;
  let seen = version();
  let othersCommittedAt = -Infinity;
  return async (write) => {
    const started = performance.now();
    const result = await write();
    const ended = performance.now();
    const now = version();
    if (now !== seen) othersCommittedAt = ended;
    seen = now;
    if (ended - othersCommittedAt < SHARED_FOR_MS) await setTimeout(Math.min(ended - started, MAX_PAUSE_MS));
    return result;
  };
}
