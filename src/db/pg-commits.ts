// Cross-process wake-ups on PostgreSQL: a process whose commits no local consumer hears (a server
// with REPUTE_WORKER=off, `repute import`, the CLI) sends NOTIFY after each commit of work, and
// `repute worker` processes LISTEN, so idle deliveries go out at once instead of at the next
// WEBHOOK_POLL_MS poll. Best effort: the poll still runs.
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.ts';
import type { CommitSignal } from './commit-signal.ts';
import { type OutageLog, outageTracker } from './outage.ts';

const CHANNEL = 'repute_outbox';
const RECONNECT_MS = 1000;
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

/**
 * LISTENs on a dedicated connection and calls onNotify for each notification; returns a stop
 * function. A lost connection (a restart, a failover, a proxy's idle kill) is opened again by
 * itself, every RECONNECT_MS until it works, and onNotify is called once it is back, for what
 * was committed while nobody listened.
 */
export function listenForCommits(pool: pg.Pool, onNotify: () => void, log: OutageLog): () => Promise<void> {
  const outage = outageTracker(log, 'LISTEN for committed events');
  /** The listening connection, with its release (once: a break and a stop may both want it). */
  let client: { c: pg.PoolClient; release(error?: Error): void } | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let lost = false;

  const again = () => {
    if (!stopped && retry === null) retry = setTimeout(connect, RECONNECT_MS);
  };
  const connect = async () => {
    retry = null;
    let c: pg.PoolClient | null = null;
    let released = false;
    const release = (error?: Error) => {
      if (released || c === null) return;
      released = true;
      c.release(error);
    };
    // The break shows as an 'error' event or as the LISTEN's failure, or both: handled once.
    const drop = (error: unknown, what: string) => {
      if (released) return;
      if (!outage.failed(error)) log.warn({ err: error }, what);
      lost = true;
      if (client?.c === c) client = null;
      release(error instanceof Error ? error : new Error(String(error)));
      again();
    };
    try {
      c = await pool.connect();
      c.on('notification', onNotify);
      c.on('error', (error) => drop(error, 'LISTEN connection lost; polling until it is back'));
      await c.query(`LISTEN ${CHANNEL}`);
      if (released) return;
      client = { c, release };
      outage.ok();
      if (stopped) return void (await unlisten());
      log.info({ channel: CHANNEL }, 'listening for committed events');
      if (lost) onNotify();
    } catch (error) {
      if (c) drop(error, 'LISTEN failed; polling until it works');
      else {
        if (!outage.failed(error)) log.warn({ err: error }, 'LISTEN failed; polling until it works');
        lost = true;
        again();
      }
    }
  };
  const unlisten = async () => {
    const listening = client;
    client = null;
    if (!listening) return;
    await listening.c.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
    listening.release();
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await unlisten();
  };
}
