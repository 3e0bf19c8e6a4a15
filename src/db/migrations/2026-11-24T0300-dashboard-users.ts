// The dashboard's people: users (one account each, an e-mail unique in the instance whatever its
// case, a scrypt password hash, a role, optionally a node), their server-side sessions (only a
// hash of the cookie's id is stored), and when each API key was last used (Settings → API lists it).
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const str = pg ? sql`text collate "C"` : sql`text`;

  await db.schema.createTable('users')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    // As typed at creation; email_key (lower case) is what makes it unique and what sign-in looks up.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', str, (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('node_id', str, (c) => c.references('nodes.id'))
    .addColumn('language', 'text')
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_account').on('users').columns(['account_id', 'email_key']).execute();

  await db.schema.createTable('user_sessions')
    .addColumn('id_hash', str, (c) => c.primaryKey())
    .addColumn('user_id', str, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('last_seen_at', str, (c) => c.notNull())
    .addColumn('expires_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id']).execute();
  await db.schema.createIndex('user_sessions_expires').on('user_sessions').columns(['expires_at']).execute();

  await db.schema.alterTable('api_keys').addColumn('last_used_at', str).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.dropTable('user_sessions').execute();
  await db.schema.dropTable('users').execute();
}
