// SQL of accounts.
import type { Kysely } from 'kysely';
import type { AccountRow, DB } from '../../db/schema.ts';

export async function findAccount(db: Kysely<DB>, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAccount(db: Kysely<DB>, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function updateAccount(db: Kysely<DB>, id: string, changes: Partial<Omit<AccountRow, 'id' | 'created_at'>>): Promise<void> {
  await db.updateTable('accounts').set(changes).where('id', '=', id).execute();
}

/** A page of accounts, newest first on (created_at, id); limit + 1 rows. */
export async function listAccountPage(db: Kysely<DB>, after: { created_at: string; id: string } | null, limit: number): Promise<AccountRow[]> {
  let query = db.selectFrom('accounts').selectAll();
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)])]));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}
