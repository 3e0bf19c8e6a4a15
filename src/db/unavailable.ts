// Recognises a database that cannot be reached or cannot serve right now (a restart, a failover,
// a proxy's idle kill, a full pool, a locked SQLite file): a fault to wait out, not a bug.

/** PostgreSQL SQLSTATEs of an unreachable or stopping server (class 08 is matched as a prefix). */
const PG_CODES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: a failover left this connection on a standby
]);

/** Socket errors of a connection that failed or broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Messages pg and pg-pool throw without a code when a connection breaks or cannot be had in time. */
const PG_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/, // pg-pool: connectionTimeoutMillis passed
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Connection ended unexpectedly$/,
  /^Query read timeout$/, // no answer within QUERY_TIMEOUT_MS (src/db/connect.ts): a silent server
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') && code.length === 5) return true; // connection_exception class
    if (PG_CODES.has(code) || SOCKET_CODES.has(code)) return true;
    // better-sqlite3: another connection holds the lock past busy_timeout (SQLITE_BUSY_SNAPSHOT, …).
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
  }
  if (typeof message === 'string' && PG_MESSAGES.some((m) => m.test(message))) return true;
  // Connecting to a name with several addresses fails with an AggregateError of one error each.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}

/**
 * PostgreSQL refused a write because the connection is on a read-only server (a failover to a
 * standby, or default_transaction_read_only): bookkeeping that can wait (a key's or a session's
 * last use) is skipped then, so reads keep working while writes answer 503. Any other fault is
 * thrown as it came.
 */
export async function unlessReadOnly(bookkeeping: Promise<unknown>): Promise<void> {
  await bookkeeping.catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code !== '25006') throw error;
  });
}
