// The test app factory: one fresh, migrated database per app (a temp SQLite file, or a PostgreSQL
// schema of its own), so tests never share data and may run side by side.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import { connect, type Database, type Dialect } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createContext } from '../../src/context.ts';
import { buildApp } from '../../src/app.ts';
import type { AppContext } from '../../src/context.ts';

export const ADMIN_TOKEN = 'test-admin-token';
export const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set (CI always sets it). */
export const dialects: Dialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  dialect: Dialect;
  url: string;
  /** PostgreSQL schema name, or the SQLite file's folder. */
  schema: string | null;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh migrated database of the dialect. */
export async function freshDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'repute-test-'));
    const url = `sqlite:${join(dir, 'repute.db')}`;
    const database = connect(url);
    await migrateToLatest(database.db);
    return {
      dialect, url, schema: null, database,
      drop: async () => {
        await database.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const database = connect(url, { schema, poolSize: 4 });
  await migrateToLatest(database.db);
  return {
    dialect, url, schema, database,
    drop: async () => {
      await database.destroy();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}

/** Environment for loadConfig pointing at a test database. */
export function testEnv(db: TestDatabase, env: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    REPUTE_ADMIN_TOKEN: ADMIN_TOKEN,
    REPUTE_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: 'silent',
    REPUTE_WORKER: 'off',
    // Tests send many bad keys from one address on purpose (the fuzz); the throttle has its own tests.
    AUTH_FAILURE_LIMIT: '1000000',
    ...env,
  };
}

export interface TestApp {
  dialect: Dialect;
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  testDb: TestDatabase;
  /** An admin API call: path relative to /admin/v1. */
  admin(method: InjectOptions['method'], path: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** A public API call with a key: path relative to /api/v4. */
  api(key: string | null, method: InjectOptions['method'], path: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse a database (e.g. a second instance on the same data); it is then not dropped on close. */
  database?: TestDatabase;
}

export async function createTestApp(dialect: Dialect, options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = options.database ?? (await freshDatabase(dialect));
  const config = loadConfig(testEnv(testDb, options.env));
  const base = createContext(config, testDb.database);
  const app = await buildApp(base);
  await app.ready();
  // As `repute serve` does: with REDIS_URL, the first requests count in the shared window.
  await base.rateLimits.connected();
  const ctx: AppContext = { ...base, log: app.log };
  const inject = (method: InjectOptions['method'], url: string, headers: Record<string, string>, body?: unknown) =>
    app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) });
  return {
    dialect, app, ctx, config, testDb,
    admin: (method, path, body) => inject(method, `/admin/v1${path}`, { authorization: `Bearer ${ADMIN_TOKEN}` }, body),
    api: (key, method, path, body) => inject(method, `/api/v4${path}`, key === null ? {} : { authorization: `Bearer ${key}` }, body),
    close: async () => {
      await app.close();
      await base.rateLimits.close();
      if (!options.database) await testDb.drop();
    },
  };
}

/** The raw better-sqlite3 handle of a SQLite test database (throws on PostgreSQL). */
export function sqliteOf(database: Database): SQLite.Database {
  if (database.dialect !== 'sqlite') throw new Error('a SQLite database was expected');
  return database.sqlite;
}

/** The pg pool of a PostgreSQL test database (throws on SQLite). */
export function poolOf(database: Database): pg.Pool {
  if (database.dialect !== 'postgres') throw new Error('a PostgreSQL database was expected');
  return database.pool;
}
