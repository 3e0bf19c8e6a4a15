// Dashboard sessions kept in memory without ever outliving their end. The database signals every
// change that can end a session or alter what a kept one says (migration
// 2026-11-26T1400-session-change-signal: a session deleted or shortened, a user changed or deleted,
// a node moved or deleted, a plan changed), whichever process or instance made it:
//   - SQLite: triggers count the changes in one row, read before every use of a kept session (one
//     primary-key read with a statement prepared once, instead of the session's four-table join);
//   - PostgreSQL: triggers NOTIFY, which a dedicated connection LISTENs to; while it is not
//     listening (not yet, or its connection was lost), nothing is kept and every request reads its
//     session as before. Another instance's change reaches this one as fast as the notification
//     does (a few milliseconds).
// Changes made through this instance also clear the cache at once (clear()), before the
// notification arrives. Whatever the signal, a kept session is read again after KEEP_MS: the bound
// if a signal is ever missed (a connection pooler in transaction mode, such as PgBouncer's, may
// swallow notifications), the same as an API key's principal on other instances.
import type { Database } from '../../db/connect.ts';
import type { OutageLog } from '../../db/outage.ts';
import { listen } from '../../db/pg-listen.ts';
import type { SessionLookup } from './repository.ts';

/** Sessions kept at most; beyond, the cache starts afresh (they are quick to read again). */
const MAX_ENTRIES = 10_000;
/** The longest a session is used without reading it again, whatever the database signals. */
export const KEEP_MS = 2000;

/** The database's change stamp: differs after any change that may end or alter a session; null when unknown. */
interface ChangeStamp {
  current(): number | null;
  stop(): Promise<void>;
}

/** What a database read of a session was made under: set() keeps the row only if the stamp and the local clears are unchanged since. */
export interface SessionTicket {
  readonly stamp: number | null;
  readonly local: number;
  /** When the read began: the row is kept KEEP_MS from then. */
  readonly at: number;
}

export class SessionCache {
  readonly #entries = new Map<string, { lookup: SessionLookup; until: number }>();
  /** The change stamp the kept entries were read under. */
  #stamp: number | null = null;
  /** Bumped by clear(): a read that began before it must not be kept. */
  #local = 0;
  #changes: ChangeStamp | null = null;
  #log: OutageLog | null = null;

  /** `now` is the clock (tests move it). */
  constructor(private readonly openChanges: (log: OutageLog) => ChangeStamp, private readonly now: () => number = Date.now) {}

  /**
   * Lets the cache keep sessions from now on, logging to `log` (the server's); the change stamp opens
   * on first use, so a server that serves no dashboard request opens no LISTEN connection.
   */
  start(log: OutageLog): void {
    this.#log = log;
  }

  /** The kept lookup of a session (by its id hash), if nothing changed since it was read. */
  get(idHash: string): SessionLookup | undefined {
    this.#sync();
    const entry = this.#entries.get(idHash);
    if (entry === undefined || entry.until > this.now()) return entry?.lookup;
    this.#entries.delete(idHash);
    return undefined;
  }

  /** Taken before reading a session from the database. */
  ticket(): SessionTicket {
    this.#sync();
    return { stamp: this.#stamp, local: this.#local, at: this.now() };
  }

  /** Keeps a session read under `ticket`, unless something changed since (or the stamp is unknown). */
  set(idHash: string, lookup: SessionLookup, ticket: SessionTicket): void {
    this.#sync();
    if (ticket.stamp === null || ticket.stamp !== this.#stamp || ticket.local !== this.#local) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(idHash, { lookup, until: ticket.at + KEEP_MS });
  }

  forget(idHash: string): void {
    this.#entries.delete(idHash);
  }

  /** After a change made through this instance (sign-out, a user's role, language or removal, a plan). */
  clear(): void {
    this.#local += 1;
    this.#entries.clear();
  }

  async stop(): Promise<void> {
    this.#log = null;
    await this.#changes?.stop();
    this.#changes = null;
    this.#entries.clear();
  }

  #sync(): void {
    if (this.#changes === null && this.#log !== null) this.#changes = this.openChanges(this.#log);
    const stamp = this.#changes === null ? null : this.#changes.current();
    if (stamp !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = stamp;
    }
  }
}

/** The session cache of a database: its change stamp read from SQLite's counter, or heard from PostgreSQL. */
export function sessionCache(database: Database): SessionCache {
  if (database.dialect === 'sqlite') {
    return new SessionCache(() => {
      const count = database.sqlite.prepare('select n from session_changes where id = 1').pluck();
      return { current: () => count.get() as number, stop: async () => {} };
    });
  }
  return new SessionCache((log) => {
    let heard = 0;
    let listening = false;
    const stop = listen(database.pool, 'repute_sessions', 'ended sessions', {
      onNotify: () => { heard += 1; },
      // Whatever ended while nobody listened is unknown: start afresh.
      onListening: () => { heard += 1; listening = true; },
      onLost: () => { listening = false; },
    }, log);
    return { current: () => (listening ? heard : null), stop };
  });
}
