// LISTEN on PostgreSQL from a dedicated connection of the pool that survives the connection's loss:
// what wakes workers on other processes' commits (pg-commits.ts) and what tells a server that a
// dashboard session ended elsewhere (src/modules/users/session-changes.ts).
import type pg from 'pg';
import { type OutageLog, outageTracker } from './outage.ts';

const RECONNECT_MS = 1000;

export interface ListenHandlers {
  onNotify: () => void;
  /** The LISTEN took effect: at start, or after a lost connection came back (notifications in between are lost). */
  onListening?: (after: 'start' | 'lost') => void;
  /** The connection broke or could not be opened: notifications are not heard until onListening. */
  onLost?: () => void;
}

/**
 * LISTENs to `channel` (notifications of `what`, as the log names them) on a dedicated connection;
 * returns a stop function. A lost connection (a restart, a failover, a proxy's idle kill) is opened
 * again by itself, every RECONNECT_MS until it works; the handlers hear when listening stops and
 * starts again.
 */
export function listen(pool: pg.Pool, channel: string, what: string, handlers: ListenHandlers, log: OutageLog): () => Promise<void> {
  const outage = outageTracker(log, `LISTEN for ${what}`);
  /** The listening connection, with its release (once: a break and a stop may both want it). */
  let client: { c: pg.PoolClient; release(error?: Error): void } | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let lost = false;

  const again = () => {
    if (!stopped && retry === null) retry = setTimeout(connect, RECONNECT_MS);
  };
  const markLost = () => {
    lost = true;
    handlers.onLost?.();
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
    const drop = (error: unknown, message: string) => {
      if (released) return;
      if (!outage.failed(error)) log.warn({ err: error }, message);
      markLost();
      if (client?.c === c) client = null;
      release(error instanceof Error ? error : new Error(String(error)));
      again();
    };
    try {
      c = await pool.connect();
      c.on('notification', handlers.onNotify);
      c.on('error', (error) => drop(error, `LISTEN connection for ${what} lost; reconnecting`));
      await c.query(`LISTEN ${channel}`);
      if (released) return;
      client = { c, release };
      outage.ok();
      if (stopped) return void (await unlisten());
      log.info({ channel }, `listening for ${what}`);
      handlers.onListening?.(lost ? 'lost' : 'start');
    } catch (error) {
      if (c) drop(error, `LISTEN for ${what} failed; retrying`);
      else {
        if (!outage.failed(error)) log.warn({ err: error }, `LISTEN for ${what} failed; retrying`);
        markLost();
        again();
      }
    }
  };
  const unlisten = async () => {
    const listening = client;
    client = null;
    if (!listening) return;
    await listening.c.query(`UNLISTEN ${channel}`).catch(() => undefined);
    listening.release();
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await unlisten();
  };
}
