// The database tells every process when a dashboard session may have ended or changed (a session
// deleted or shortened, a user changed or deleted, a node moved or deleted, a plan changed), whoever made the
// change (this server, another instance, the CLI, plain SQL), so servers can keep sessions in
// memory and still refuse an ended one at once (src/modules/users/session-changes.ts).
// SQLite: triggers count the changes in session_changes (one row), which a server reads per request.
// PostgreSQL: triggers NOTIFY repute_sessions, which every server LISTENs to.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * What can end a session or change what a kept one says: [trigger name, event, condition]. A session's
 * touch (last_seen_at moving forward, once a minute) is no change: its end only comes closer by
 * time, which a server checks itself.
 */
const CHANGES: ReadonlyArray<readonly [string, string, string | null]> = [
  ['session_ended', 'after delete on user_sessions', null],
  ['session_shortened', 'after update of last_seen_at, expires_at on user_sessions',
    'new.last_seen_at < old.last_seen_at or new.expires_at <> old.expires_at'],
  ['session_user_changed', 'after update on users', null],
  ['session_user_deleted', 'after delete on users', null],
  ['session_node_moved', 'after update of path on nodes', null],
  ['session_node_deleted', 'after delete on nodes', null],
  ['session_plan_changed', 'after update of plan_features on accounts', null],
];

const condition = (when: string | null) => (when === null ? sql`` : sql` when (${sql.raw(when)})`);

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create or replace function repute_session_changed() returns trigger language plpgsql as $$
      begin perform pg_notify('repute_sessions', ''); return null; end $$`.execute(db);
    for (const [name, event, when] of CHANGES) {
      await sql`create trigger ${sql.id(name)} ${sql.raw(event)} for each row${condition(when)} execute function repute_session_changed()`.execute(db);
    }
    return;
  }
  await sql`create table session_changes (id integer primary key check (id = 1), n integer not null)`.execute(db);
  await sql`insert into session_changes (id, n) values (1, 0)`.execute(db);
  for (const [name, event, when] of CHANGES) {
    await sql`create trigger ${sql.id(name)} ${sql.raw(event)} for each row${condition(when)} begin update session_changes set n = n + 1 where id = 1; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [name, event] of CHANGES) {
    const table = event.split(' on ')[1]!;
    await sql`drop trigger ${sql.id(name)}${pg ? sql` on ${sql.id(table)}` : sql``}`.execute(db);
  }
  if (pg) await sql`drop function repute_session_changed()`.execute(db);
  else await sql`drop table session_changes`.execute(db);
}
