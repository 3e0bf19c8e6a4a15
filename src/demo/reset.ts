// Makes way for a fresh demo: deletes the SQLite file (only when it holds nothing but demo data, unless
// forced), or, forced only, drops every table of the PostgreSQL schema and the migrations' functions. An operator's data is precious.
import { existsSync, rmSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { sqlitePath } from '../config.ts';
import { connect } from '../db/connect.ts';
import { invalid } from '../lib/errors.ts';
import { DEMO_ACCOUNT } from './generate.ts';

export async function resetForDemo(databaseUrl: string, force: boolean): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) return resetSqlite(sqlitePath(databaseUrl), force);
  if (!force) {
    throw invalid('DATABASE_URL is PostgreSQL: `repute demo` would drop every table of its schema; add --force if that is really what you want');
  }
  const database = connect(databaseUrl, { poolSize: 1 });
  try {
    const tables = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(database.db);
    if (tables.rows.length > 0) {
      await sql.raw(`drop table ${tables.rows.map((t) => `"${t.name.replaceAll('"', '""')}"`).join(', ')} cascade`).execute(database.db);
    }
    // The migrations' trigger functions too, all named repute_… (their triggers went with the tables).
    const functions = await sql<{ name: string }>`select proname as name from pg_proc
      where pronamespace = current_schema()::regnamespace and starts_with(proname, 'repute_')`.execute(database.db);
    for (const { name } of functions.rows) await sql`drop function if exists ${sql.id(name)} cascade`.execute(database.db);
  } finally {
    await database.destroy();
  }
}

function resetSqlite(path: string, force: boolean): void {
  if (path === ':memory:') throw invalid('the demo needs a database file: DATABASE_URL=sqlite::memory: would vanish before it could be served');
  if (!existsSync(path)) return;
  if (!force) {
    const foreign = otherData(path);
    if (foreign) throw invalid(`${path} holds ${foreign}; the demo replaces the whole file: add --force to wipe it, or point DATABASE_URL elsewhere`);
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
}

/** What the file holds besides an earlier demo, or null. */
function otherData(path: string): string | null {
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[];
    if (tables.length === 0) return null;
    if (!tables.includes('accounts')) return 'tables that are not Repute\'s';
    const names = db.prepare('select name from accounts').pluck().all() as string[];
    const others = names.filter((n) => n !== DEMO_ACCOUNT);
    return others.length > 0 ? `${others.length} account(s) that are not demo data (e.g. "${others[0]}")` : null;
  } catch {
    return 'something that is not a readable SQLite database';
  } finally {
    db.close();
  }
}
