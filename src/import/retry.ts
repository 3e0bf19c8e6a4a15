// Retries a write the database turned away for contention rather than for its content: SQLite's
// SQLITE_BUSY/SQLITE_LOCKED once busy_timeout (5 s) has run out beside a busy server, PostgreSQL's
// deadlock and serialization failures. The write is one transaction, rolled back, so it runs again whole.
import { isContention } from '../db/errors.ts';

const BACKOFF_MS = [50, 100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000, 5000];

/** Runs write; on contention waits (50 ms doubling to 5 s, about 36 s in all) and runs it again, then gives up with the last error. */
export async function retryOnContention<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const wait = BACKOFF_MS[attempt];
      if (!isContention(error) || wait === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait * 0.2));
    }
  }
}
