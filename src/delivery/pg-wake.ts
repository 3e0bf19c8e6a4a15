// Cross-process wake-ups on PostgreSQL: a server that does not deliver itself (REPUTE_WORKER=off)
// sends NOTIFY when it commits events, and `repute worker` processes LISTEN, so idle deliveries go
// out at once instead of at the next WEBHOOK_POLL_MS poll. Best effort: the poll still runs.
import { sql } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/connect.ts';
import type { OutboxSignal } from '../events/signal.ts';
import type { WorkerLog } from './worker.ts';

const CHANNEL = 'repute_outbox';
const RECONNECT_MS = 5000;

/** Forwards the in-process outbox signal as NOTIFY (one in flight at a time; bursts coalesce). */
export function notifyOnCommit(database: Database, outbox: OutboxSignal, log: WorkerLog): () => void {
  let sending = false;
  let again = false;
  const send = () => {
    if (sending) {
      again = true;
      return;
    }
    sending = true;
    sql`select pg_notify(${CHANNEL}, '')`.execute(database.db)
      .catch((error: unknown) => log.warn({ err: error }, 'NOTIFY of committed events failed'))
      .finally(() => {
        sending = false;
        if (again) {
          again = false;
          send();
        }
      });
  };
  outbox.on('committed', send);
  return () => outbox.off('committed', send);
}

/** One NOTIFY now, for writers outside a server (`repute import`); nothing on SQLite, where workers poll. */
export async function notifyWorkers(database: Database): Promise<void> {
  if (database.dialect === 'postgres') await sql`select pg_notify(${CHANNEL}, '')`.execute(database.db);
}

/** LISTENs on a dedicated connection and calls onNotify for each notification; returns a stop function. */
export function listenForCommits(database: Database, onNotify: () => void, log: WorkerLog): () => Promise<void> {
  const pool = database.pool;
  if (pool === null) return async () => {};
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
