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
