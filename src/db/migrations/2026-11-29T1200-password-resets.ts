// Links to choose a new password, sent by e-mail from "Forgot your password?" on the sign-in page
// (src/modules/users/password-reset.ts): only the SHA-256 of each link's token is kept, with its
// user and its end. Used once; a new password ends every link of the user.
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // As users.id and the other keys and times are on PostgreSQL: bytewise comparison.
  const str = db.getExecutor().adapter instanceof PostgresAdapter ? sql`text collate "C"` : sql`text`;
  await db.schema.createTable('password_resets')
    .addColumn('token_hash', str, (c) => c.primaryKey())
    .addColumn('user_id', str, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('expires_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('password_resets').execute();
}
