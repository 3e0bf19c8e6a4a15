// Opens the database named by a DATABASE_URL: SQLite (better-sqlite3) or PostgreSQL (pg), one Kysely
// type. The dialect is chosen here, once: the Database says which it is and carries its own handle,
// and the per-dialect stores (src/stores.ts) are built from it.
import { chmodSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { withNamedStatements } from './pg-named-statements.ts';
import { sqlitePath } from '../config.ts';
import type { OutageLog } from './outage.ts';
import { forwardCommits, listenForCommits } from './pg-commits.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { withStatementCache } from './statement-cache.ts';
import { runDirectly } from './direct-statement.ts';
import type { DB } from './schema.ts';
import { AdapterCarrier } from './adapter.ts';
import { CommitSignal } from './commit-signal.ts';
import { postgresSql, registerSqliteFunctions, sqliteSql } from './dialect.ts';
import { makeFolder } from '../lib/make-folder.ts';

export type Dialect = 'sqlite' | 'postgres';

interface OpenDatabase {
  readonly db: Kysely<DB>;
  /** Fired after each commit of work for background consumers (src/db/transaction.ts). */
  readonly commits: CommitSignal;
  /** How many writers usefully run side by side: SQLite has one, PostgreSQL takes several. */
  readonly concurrentWriters: number;
  /** Calls onCommit when another process commits work (PostgreSQL LISTEN; SQLite: never, the poll finds it). */
  listenForCommits(onCommit: () => void, log: OutageLog): () => Promise<void>;
  destroy(): Promise<void>;
}

export interface SqliteDatabase extends OpenDatabase {
  readonly dialect: 'sqlite';
  /** The raw better-sqlite3 handle, for hot paths that keep prepared statements. */
  readonly sqlite: SQLite.Database;
}

export interface PostgresDatabase extends OpenDatabase {
  readonly dialect: 'postgres';
  readonly pool: pg.Pool;
}

export type Database = SqliteDatabase | PostgresDatabase;

export interface ConnectOptions {
  /** PostgreSQL only: the schema to work in (tests get one each); created when missing. */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL only: QUERY_TIMEOUT_MS unless given (tests shorten it). */
  queryTimeoutMs?: number;
}

/** The longest a query waits for a connection: to open one, or for one of the pool's to be free. */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * PostgreSQL: the longest a statement's answer may take. A server that goes silent without closing
 * the connection (a network partition, a frozen host, a firewall dropping packets) would otherwise
 * hold the request, and the connection, for as long as TCP keeps trying (many minutes). Past it the
 * statement fails (503) and its connection is discarded (pg-named-statements.ts), so the pool opens
 * fresh ones once the server answers again. No statement of Repute's comes near it: the slowest
 * (a migration's backfill on a million reviews) take seconds.
 */
export const QUERY_TIMEOUT_MS = 30_000;

// PostgreSQL returns count(*) and other int8 values as strings; our counts fit a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function connect(databaseUrl: string, options: ConnectOptions = {}): Database {
  if (databaseUrl.startsWith('sqlite:')) return connectSqlite(sqlitePath(databaseUrl));
  return connectPostgres(databaseUrl, options);
}

function connectSqlite(path: string): SqliteDatabase {
  const created = path !== ':memory:' && !existsSync(path);
  // The file holds personal data: folders made here and a new file are the owner's only. SQLite
  // gives the -wal and -shm files the database file's mode, so they follow.
  if (path !== ':memory:') makeFolder(dirname(path), 0o700);
  const sqlite = new SQLite(path);
  if (created) chmodSync(path, 0o600);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  registerSqliteFunctions(sqlite);
  const commits = new CommitSignal();
  const statements = withStatementCache(sqlite);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }), plugins: [new AdapterCarrier(commits, sqliteSql)] });
  runDirectly(db, (text, parameters) => {
    // A Kysely transaction holds the one connection across awaits: a statement run now would see its
    // uncommitted writes. It waits for the transaction through Kysely instead.
    if (sqlite.inTransaction) return null;
    const statement = statements.prepare(text);
    return statement.reader ? statement.all(parameters) : null;
  });
  // Not fatal when it fails: the main connection then checkpoints by itself, as SQLite does by default.
  const checkpointer = path === ':memory:' ? null : startCheckpointer(sqlite, path, (error) => {
    process.emitWarning(`background WAL checkpoints stopped: ${error.message}`);
  });
  return {
    db, dialect: 'sqlite', sqlite, commits, concurrentWriters: 1,
    listenForCommits: () => async () => {},
    async destroy() {
      await checkpointer?.stop();
      await db.destroy();
      // Kysely closes the handle only if it ever ran a query (its driver starts lazily).
      if (sqlite.open) sqlite.close();
    },
  };
}

function connectPostgres(url: string, options: ConnectOptions): PostgresDatabase {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Named in pg_stat_activity (an application_name in DATABASE_URL wins).
    application_name: 'repute',
    // A server that cannot be reached, or a pool that stays full, fails the request (503) rather than hanging it.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection the server drops (a restart, a failover, a proxy's idle kill) emits 'error', on the
  // pool while idle and on the client while checked out; with no listener Node would exit. The pool
  // discards it either way, and the query that was using it fails on its own (answered 503).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const commits = new CommitSignal();
  const named = withNamedStatements(pool);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: named as unknown as pg.Pool }), plugins: [new AdapterCarrier(commits, postgresSql)] });
  runDirectly(db, named.run);
  // Other processes' workers hear of this process's commits unless a worker here consumes them.
  const forwarding = forwardCommits(db, commits);
  return {
    db, dialect: 'postgres', pool, commits, concurrentWriters: 4,
    listenForCommits: (onCommit, log) => listenForCommits(pool, onCommit, log),
    async destroy() {
      await forwarding.stop();
      await db.destroy();
    },
  };
}
