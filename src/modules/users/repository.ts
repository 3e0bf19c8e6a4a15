// SQL of dashboard users and their sessions.
import type { Kysely } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.ts';
import type { DB, UserRow, UserSessionRow } from '../../db/schema.ts';

export async function insertUser(db: Kysely<DB>, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUser(db: Kysely<DB>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByEmail(db: Kysely<DB>, emailKey: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey).executeTakeFirst();
}

/** The account's users with the path of their node (null: the whole account), by e-mail. */
export async function listAccountUsers(db: Kysely<DB>, accountId: string): Promise<Array<UserRow & { node_path: string | null; node_name: string | null }>> {
  return db.selectFrom('users').leftJoin('nodes', 'nodes.id', 'users.node_id')
    .selectAll('users').select(['nodes.path as node_path', 'nodes.name as node_name'])
    .where('users.account_id', '=', accountId).orderBy('users.email_key').execute();
}

export async function updateUser(db: Kysely<DB>, id: string, changes: Partial<Pick<UserRow, 'role' | 'language'>>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/**
 * A new password: every link to choose one (password_resets) ends with the old one, and every
 * session of the user but `keepSessionHash` (null: every one). Run it in a transaction.
 */
export async function replacePassword(db: Kysely<DB>, id: string, hash: string, keepSessionHash: string | null): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
  await db.deleteFrom('password_resets').where('user_id', '=', id).execute();
  await deleteSessionsOfUser(db, id, keepSessionHash);
}

export async function insertPasswordReset(db: Kysely<DB>, row: { token_hash: string; user_id: string; created_at: string; expires_at: string }): Promise<void> {
  await db.insertInto('password_resets').values(row).execute();
}

/** The user of a live link (not past its end), or undefined. */
export async function findPasswordReset(db: Kysely<DB>, tokenHash: string, now: string): Promise<{ user_id: string; email: string } | undefined> {
  return db.selectFrom('password_resets').innerJoin('users', 'users.id', 'password_resets.user_id')
    .select(['password_resets.user_id', 'users.email']).where('password_resets.token_hash', '=', tokenHash).where('password_resets.expires_at', '>', now)
    .executeTakeFirst();
}

/** Takes a live link (deletes it) and answers its user, or undefined: of two uses at once, one gets it. */
export async function takePasswordReset(db: Kysely<DB>, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db.deleteFrom('password_resets').where('token_hash', '=', tokenHash).where('expires_at', '>', now).returning('user_id').executeTakeFirst();
  return row?.user_id;
}

/** Forgets links past their end (any user's): called when a new one is made, so the table stays small. */
export async function deleteEndedPasswordResets(db: Kysely<DB>, now: string): Promise<void> {
  await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}

/** Ends every session of the user but `keepHash` (null: every one). */
async function deleteSessionsOfUser(db: Kysely<DB>, userId: string, keepHash: string | null): Promise<void> {
  let query = db.deleteFrom('user_sessions').where('user_id', '=', userId);
  if (keepHash !== null) query = query.where('id_hash', '!=', keepHash);
  await query.execute();
}

/** Deletes the user and every session of it; false when there was no such user. */
export async function deleteUser(db: Kysely<DB>, id: string): Promise<boolean> {
  await db.deleteFrom('user_sessions').where('user_id', '=', id).execute();
  await db.deleteFrom('password_resets').where('user_id', '=', id).execute();
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertSession(db: Kysely<DB>, row: UserSessionRow): Promise<void> {
  await db.insertInto('user_sessions').values(row).execute();
}

export interface SessionLookup {
  id_hash: string;
  last_seen_at: string;
  expires_at: string;
  user_id: string;
  account_id: string;
  email: string;
  role: string;
  language: string | null;
  user_node_id: string | null;
  node_id: string;
  node_path: string;
  node_type: string;
  plan_features: string;
}

/** A session with its user, the user's node (the account's root when it has none) and the plan. */
// Read on every dashboard request: built once (building the join cost more than running it).
const sessionByHash = compiledOnce((db, idHash: string) => db.selectFrom('user_sessions')
  .innerJoin('users', 'users.id', 'user_sessions.user_id')
  .innerJoin('accounts', 'accounts.id', 'users.account_id')
  // The user's node, else the account's root: one equality, so the join is an index lookup, not a scan of nodes.
  .innerJoin('nodes', (join) => join.on((eb) => eb('nodes.id', '=', eb.fn.coalesce('users.node_id', eb.selectFrom('nodes as root')
    .select('root.id').whereRef('root.account_id', '=', 'users.account_id').where('root.parent_id', 'is', null)))))
  .select([
    'user_sessions.id_hash', 'user_sessions.last_seen_at', 'user_sessions.expires_at', 'users.id as user_id', 'users.account_id',
    'users.email', 'users.role', 'users.language', 'users.node_id as user_node_id', 'nodes.id as node_id', 'nodes.path as node_path',
    'nodes.type as node_type', 'accounts.plan_features',
  ])
  .where('user_sessions.id_hash', '=', idHash));

export async function findSession(db: Kysely<DB>, idHash: string): Promise<SessionLookup | undefined> {
  return (await sessionByHash(db, idHash))[0];
}

export async function touchSession(db: Kysely<DB>, idHash: string, at: string): Promise<void> {
  await db.updateTable('user_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Kysely<DB>, idHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id_hash', '=', idHash).execute();
}

/** Drops sessions past their absolute end or idle since before idleBefore. */
export async function deleteExpiredSessions(db: Kysely<DB>, now: string, idleBefore: string): Promise<void> {
  await db.deleteFrom('user_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)])).execute();
}
