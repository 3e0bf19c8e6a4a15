// Cross-process wake-ups on PostgreSQL: a process whose commits no local consumer hears (a server
// with REPUTE_WORKER=off, `repute import`, the CLI) sends NOTIFY after each commit of work, and
// `repute worker` processes LISTEN, so idle deliveries go out at once instead of at the next
// WEBHOOK_POLL_MS poll. Best effort: the poll still runs.
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.ts';
import type { CommitSignal } from './commit-signal.ts';
import type { OutageLog } from './outage.ts';
import { listen } from './pg-listen.ts';

const CHANNEL = 'repute_outbox';
/** Commits in a burst are announced at most this often (the first one at once). */
const NOTIFY_EVERY_MS = 200;

/**
 * Forwards the commit signal as NOTIFY when nothing else in this process listens to it: the first
 * commit after a quiet spell at once, then at most one every NOTIFY_EVERY_MS (a burst of commits,
 * such as an import's, costs a few round trips a second, not one per commit), and the last one is
 * always sent. stop() sends one still waiting and waits for the one in flight.
 */
export function forwardCommits(db: Kysely<DB>, commits: CommitSignal): { stop(): Promise<void> } {
  let last = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | null = null;
  let sending: Promise<void> | null = null;
  const send = () => {
    timer = null;
    last = Date.now();
    sending = sql`select pg_notify(${CHANNEL}, '')`.execute(db).then(
      () => undefined,
      (error: unknown) => process.emitWarning(`NOTIFY of committed events failed: ${(error as Error).message}`),
    ).finally(() => {
      sending = null;
    });
  };
  const onCommit = () => {
    if (commits.listenerCount('committed') > 1 || timer) return;
    const wait = last + NOTIFY_EVERY_MS - Date.now();
    if (wait <= 0) send();
    else timer = setTimeout(send, wait);
  };
  commits.on('committed', onCommit);
  return {
    async stop() {
      commits.off('committed', onCommit);
      if (timer) {
        clearTimeout(timer);
        send();
      }
      await sending;
    },
  };
}

/** LISTENs for other processes' committed work; onNotify also follows a lost connection's return. */
export function listenForCommits(pool: pg.Pool, onNotify: () => void, log: OutageLog): () => Promise<void> {
  return listen(pool, CHANNEL, 'committed events', { onNotify, onListening: (after) => { if (after === 'lost') onNotify(); } }, log);
}
