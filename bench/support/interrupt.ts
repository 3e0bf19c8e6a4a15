// An interrupted bench (Ctrl-C, SIGTERM) undoes what it set up before it exits: it drops its
// databases (a PostgreSQL schema would otherwise stay behind in TEST_DATABASE_URL's database, a
// SQLite file in the temporary folder) and puts back what it moved (PostgreSQL's CPUs). Each undo is
// registered while its thing exists and forgotten once the bench undoes it itself; on a signal they
// run newest first, then the process exits 130 (SIGINT) or 143 (SIGTERM). A second Ctrl-C exits at once.
// A signal waits for the step in progress when that step holds the event loop (better-sqlite3's
// seeding of a large SQLite database, for one).
import type { Dialect } from '../../src/db/connect.ts';
import { createTestApp, freshDatabase, type TestApp, type TestAppOptions, type TestDatabase } from '../../test/support/app.ts';

type Undo = () => unknown;

const undos = new Set<Undo>();
let listening = false;
let interrupting = false;

/** True once a signal came: a bench's own error handler leaves the exit to the clean-up. */
export const isInterrupted = (): boolean => interrupting;

async function interrupted(signal: NodeJS.Signals): Promise<void> {
  interrupting = true;
  // The bench's own work goes on failing as its databases go away: expected, and it must not end
  // the process (an error at the top level would) before the clean-up has finished.
  process.on('uncaughtException', () => {}).on('unhandledRejection', () => {});
  console.error(`\n${signal}: cleaning up before exiting`);
  for (const undo of [...undos].reverse()) {
    try {
      await undo();
    } catch (error) {
      console.error('a clean-up step failed:', error);
    }
  }
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/**
 * Runs `undo` if the bench is interrupted; answers the function that forgets it (the bench undid it).
 * Something set up while the clean-up already runs (the bench's work goes on until it fails) is
 * undone at once.
 */
export function onInterrupt(undo: Undo): () => void {
  if (interrupting) {
    void Promise.resolve().then(undo).catch(() => {});
    return () => {};
  }
  if (!listening) {
    listening = true;
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  }
  undos.add(undo);
  return () => {
    undos.delete(undo);
  };
}

/** A fresh migrated database (test/support/app.ts freshDatabase) that is dropped on an interrupt too. */
export async function benchDatabase(dialect: Dialect): Promise<TestDatabase> {
  const database = await freshDatabase(dialect);
  // Once: an interrupt's drop and the bench's own (its finally, as its work fails) may overlap.
  let dropping: Promise<void> | null = null;
  const dropOnce = () => (dropping ??= database.drop());
  const forget = onInterrupt(dropOnce);
  return {
    ...database,
    drop: async () => {
      forget();
      await dropOnce();
    },
  };
}

/** createTestApp on a benchDatabase: its close() drops the database, as an interrupt does. */
export async function benchApp(dialect: Dialect, options: Omit<TestAppOptions, 'database'> = {}): Promise<TestApp> {
  const database = await benchDatabase(dialect);
  const app = await createTestApp(dialect, { ...options, database });
  return {
    ...app,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}
