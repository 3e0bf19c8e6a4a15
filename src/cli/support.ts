// Shared by the CLI commands: open (and migrate) the DATABASE_URL database, validate option bodies
// with the admin schemas, print JSON, and turn any failure into one line.
import type { TSchema } from 'typebox';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { connect, type Database } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { AppError, describeValidation } from '../http/errors.ts';
import { DomainError } from '../lib/errors.ts';
import { validatorCompiler } from '../http/validation.ts';

/**
 * Runs fn on the migrated database named by DATABASE_URL and closes it; errors become one line (src/main.ts
 * prints it), with body field names in messages replaced by the command's option flags (`names`).
 */
export async function withDatabase<T>(fn: (database: Database, config: Config) => Promise<T>, names: Record<string, string> = {}): Promise<T> {
  const config = loadConfig();
  let database: Database | null = null;
  try {
    database = connect(config.databaseUrl, { poolSize: 4 });
    await migrateToLatest(database.db);
    return await fn(database, config);
  } catch (error) {
    const failure = oneLine(error);
    if (failure instanceof AppError) throw new AppError(failure.status, renameFields(failure.message, names));
    if (failure instanceof DomainError) throw new DomainError(failure.kind, renameFields(failure.message, names), failure.code);
    throw failure;
  } finally {
    await database?.destroy();
  }
}

/** AppError, DomainError and ConfigError pass as they are; anything else becomes an AppError with a one-line message. */
export function oneLine(error: unknown): Error {
  if (error instanceof AppError || error instanceof DomainError || error instanceof ConfigError) return error;
  const e = error as { message?: string; code?: string; errors?: Array<{ message?: string }> };
  // Connection failures arrive as AggregateError with an empty message; the first cause says it.
  const message = e?.message || e?.errors?.[0]?.message || e?.code || String(error);
  return new AppError(500, message.split('\n')[0]!);
}

/** Validates a body built from options with the same strict validator as the admin API. */
export function validate<T>(schema: TSchema, body: Record<string, unknown>): T {
  const check = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/cli' }) as unknown as
    ((v: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[1] };
  if (check(body)) return body as T;
  throw new AppError(400, describeValidation('', check.errors ?? []).replace(/(^|; )\./g, '$1'));
}

function renameFields(message: string, names: Record<string, string>): string {
  return Object.entries(names).reduce((m, [field, flag]) => m.replace(new RegExp(`\\b${field}\\b`, 'g'), flag), message);
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** Commander parser for comma lists: "a, b,c" → ["a", "b", "c"]. */
export const commaList = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);
