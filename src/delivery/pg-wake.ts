// Cross-process wake-ups on PostgreSQL: a server that does not deliver itself (REPUTE_WORKER=off)
// sends NOTIFY when it commits events, and `repute worker` processes LISTEN, so idle deliveries go
// out at once instead of at the next WEBHOOK_POLL_MS poll. Best effort: the poll still runs.
import { sql } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/connect.ts';
import { outageTracker } from '../db/outage.ts';
import type { OutboxSignal } from '../events/signal.ts';
import type { WorkerLog } from './worker.ts';

const CHANNEL = 'repute_outbox';
const RECONNECT_MS = 1000;

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

/**
 * LISTENs on a dedicated connection and calls onNotify for each notification; returns a stop
 * function. A lost connection (a restart, a failover, a proxy's idle kill) is opened again by
 * itself, every RECONNECT_MS until it works, and onNotify is called once it is back, for what
 * was committed while nobody listened.
 */
export function listenForCommits(database: Database, onNotify: () => void, log: WorkerLog): () => Promise<void> {
  const pool = database.pool;
  if (pool === null) return async () => {};
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
