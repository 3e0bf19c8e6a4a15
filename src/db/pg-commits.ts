// Cross-process wake-ups on PostgreSQL: a process whose commits no local consumer hears (a server
// with REPUTE_WORKER=off, `repute import`, the CLI) sends NOTIFY after each commit of work, and
// `repute worker` processes LISTEN, so idle deliveries go out at once instead of at the next
// WEBHOOK_POLL_MS poll. Best effort: the poll still runs.
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.ts';
import type { CommitSignal } from './commit-signal.ts';

const CHANNEL = 'repute_outbox';
const RECONNECT_MS = 5000;

export interface WarnLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Forwards the commit signal as NOTIFY when nothing else in this process listens to it (one in
 * flight at a time; bursts coalesce). stop() waits for the one in flight.
 */
export function forwardCommits(db: Kysely<DB>, commits: CommitSignal): { stop(): Promise<void> } {
  let sending: Promise<void> | null = null;
  let again = false;
  const send = () => {
    if (commits.listenerCount('committed') > 1) return;
    if (sending) {
      again = true;
      return;
    }
    sending = sql`select pg_notify(${CHANNEL}, '')`.execute(db).then(
      () => undefined,
      (error: unknown) => process.emitWarning(`NOTIFY of committed events failed: ${(error as Error).message}`),
    ).finally(() => {
      sending = null;
      if (again) {
        again = false;
        send();
      }
    });
  };
  commits.on('committed', send);
  return {
    async stop() {
      commits.off('committed', send);
      again = false;
      await sending;
    },
  };
}

/** LISTENs on a dedicated connection and calls onNotify for each notification; returns a stop function. */
export function listenForCommits(pool: pg.Pool, onNotify: () => void, log: WarnLog): () => Promise<void> {
  let client: pg.PoolClient | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async () => {
    try {
      const c = await pool.connect();
      client = c;
      c.on('notification', onNotify);
      c.on('error', (error) => {
        log.warn({ err: error }, 'LISTEN connection lost; polling until it is back');
        c.release(error);
        client = null;
        if (!stopped) retry = setTimeout(connect, RECONNECT_MS);
      });
      await c.query(`LISTEN ${CHANNEL}`);
      if (stopped) await unlisten();
      else log.info({ channel: CHANNEL }, 'listening for committed events');
    } catch (error) {
      log.warn({ err: error }, 'LISTEN failed; polling until it works');
      if (!stopped) retry = setTimeout(connect, RECONNECT_MS);
    }
  };
  const unlisten = async () => {
    const c = client;
    client = null;
    if (!c) return;
    await c.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
    c.release();
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await unlisten();
  };
}
