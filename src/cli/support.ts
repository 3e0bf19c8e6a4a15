// Shared by the CLI commands: the CLI's own error (one line on stderr, an exit code), opening (and
// migrating) the DATABASE_URL database, validating option bodies with the admin schemas, printing
// JSON. Heavy modules (database drivers, validators) load on first use, so `repute --help` stays fast.
import type { TSchema } from 'typebox';
import { ConfigError, loadConfig, maskPassword, type Config } from '../config.ts';
import type { Database } from '../db/connect.ts';
import { AppError, describeValidation } from '../http/errors.ts';
import { DomainError } from '../lib/errors.ts';

/** Exit status of a command given a bad option or argument. */
export const EXIT_USAGE = 2;
/** Exit status of a command that could not do its work (bad setting, database unreachable, port in use, not found…). */
export const EXIT_FAILURE = 1;

/** What a command failed with: src/main.ts prints `repute: <message>` on stderr and exits with `exitCode`. */
export class CliError extends Error {
  /** `cause`: the error it stands for (DEBUG=repute prints it with its stack). */
  constructor(message: string, readonly exitCode: number = EXIT_FAILURE, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/**
 * Any failure as a CliError with a one-line message. Domain errors of the services keep their
 * message (a 400 AppError is a bad option value: exit 2; others exit 1); a connection failure
 * names the database (DATABASE_URL, password masked) or the address (PORT/HOST) it concerns.
 */
export function toCliError(error: unknown, config?: Pick<Config, 'databaseUrl' | 'host' | 'port'>): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ConfigError) return new CliError(`configuration: ${error.message}`, EXIT_FAILURE, error);
  if (error instanceof AppError) return new CliError(firstLine(error.message), error.status === 400 ? EXIT_USAGE : EXIT_FAILURE, error);
  if (error instanceof DomainError) return new CliError(firstLine(error.message), error.kind === 'invalid' ? EXIT_USAGE : EXIT_FAILURE, error);
  const e = error as { message?: string; code?: string; syscall?: string; hostname?: string; errors?: Array<{ message?: string; code?: string }> };
  const code = e?.code ?? e?.errors?.[0]?.code;
  if (e?.syscall === 'listen' && config) {
    const where = `port ${config.port} on ${config.host}`;
    if (code === 'EADDRINUSE') return new CliError(`${where} is in use (set PORT or HOST)`, EXIT_FAILURE, error);
    if (code === 'EACCES') return new CliError(`${where}: permission denied (set PORT above 1023, or HOST)`, EXIT_FAILURE, error);
    if (code === 'EADDRNOTAVAIL') return new CliError(`${where}: no such address on this machine (set HOST)`, EXIT_FAILURE, error);
  }
  // A HOST that looks like a name but names nothing: listening resolves it first.
  if (e?.syscall === 'getaddrinfo' && config && e.hostname === config.host) {
    return new CliError(`HOST ${config.host} is not a name of this machine (set HOST to an address such as 127.0.0.1 or 0.0.0.0)`, EXIT_FAILURE, error);
  }
  // Connection failures arrive as AggregateError with an empty message; the first cause says it.
  const message = firstLine(e?.message || e?.errors?.[0]?.message || code || String(error));
  const why = code !== undefined ? UNREACHABLE[code] : UNREACHABLE_WORDS.find(([pattern]) => pattern.test(message))?.[1];
  if (config && why !== undefined) {
    return new CliError(`cannot reach the database at DATABASE_URL ${maskPassword(config.databaseUrl)}: ${why}`, EXIT_FAILURE, error);
  }
  return new CliError(message, EXIT_FAILURE, error);
}

/** Error codes of a database that cannot be reached or opened, in words. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'host name not found', EAI_AGAIN: 'host name not resolved (DNS)',
  ETIMEDOUT: 'connection timed out', EHOSTUNREACH: 'host unreachable', ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset', '28P01': 'password authentication failed', '28000': 'authentication refused',
  '3D000': 'the database does not exist', SQLITE_CANTOPEN: 'cannot open the file', EACCES: 'permission denied',
  SQLITE_NOTADB: 'the file is not an SQLite database', SQLITE_READONLY: 'the file is read-only',
};

/** The same, told by pg in words only (no code): a server that accepts and never answers, or hangs up. */
const UNREACHABLE_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/connection timeout|timeout exceeded when trying to connect/i, 'no answer within the connect time-out'],
  [/^Connection terminated unexpectedly$/, 'the connection closed before the database answered'],
];

const firstLine = (text: string): string => text.split('\n')[0]!;

/**
 * Runs fn on the migrated database named by DATABASE_URL and closes it; errors become CliErrors,
 * with body field names in messages replaced by the command's option flags (`names`).
 */
export async function withDatabase<T>(fn: (database: Database, config: Config) => Promise<T>, names: Record<string, string> = {}): Promise<T> {
  const config = loadConfig();
  const [{ connect }, { migrateToLatest }] = await Promise.all([import('../db/connect.ts'), import('../db/migrate.ts')]);
  let database: Database | null = null;
  try {
    database = connect(config.databaseUrl, { poolSize: 4 });
    await migrateToLatest(database.db);
    return await fn(database, config);
  } catch (error) {
    const failure = toCliError(error, config);
    throw new CliError(renameFields(failure.message, names), failure.exitCode, failure.cause ?? failure);
  } finally {
    await database?.destroy();
  }
}

/** Validates a body built from options with the same strict validator as the admin API (a CliError, exit 2, names the fields). */
export async function validate<T>(schema: TSchema, body: Record<string, unknown>): Promise<T> {
  const { validatorCompiler } = await import('../http/validation.ts');
  const check = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/cli' }) as unknown as
    ((v: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[1] };
  if (check(body)) return body as T;
  throw new CliError(describeValidation('', check.errors ?? []).replace(/(^|; )\./g, '$1'), EXIT_USAGE);
}

/** A field named as a rule's subject (a message's first word, or the first after "; ") becomes the option's flag. */
function renameFields(message: string, names: Record<string, string>): string {
  return Object.entries(names).reduce((m, [field, flag]) => m.replace(new RegExp(`(^|; )${field}\\b`, 'g'), `$1${flag}`), message);
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** Commander parser for comma lists: "a, b,c" → ["a", "b", "c"]. */
export const commaList = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);

/** Rows under a header, columns padded to their widest cell (the last column is not padded). */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const lines = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  for (const l of lines) process.stdout.write(`${l.map((cell, i) => (i === l.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()}\n`);
}
