// SQL of API keys: stored only as a SHA-256 hash; looked up by that hash.
import type { Kysely } from 'kysely';
import type { ApiKeyRow, DB } from '../../db/schema.ts';

export interface KeyLookup {
  id: string;
  account_id: string;
  node_id: string;
  scopes: string;
  key_hash: string;
  revoked_at: string | null;
  node_path: string;
  node_type: string;
  plan_features: string;
  last_used_at: string | null;
}

export async function findKeyByHash(db: Kysely<DB>, keyHash: string): Promise<KeyLookup | undefined> {
  return db.selectFrom('api_keys')
    .innerJoin('nodes', 'nodes.id', 'api_keys.node_id')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id', 'api_keys.account_id', 'api_keys.node_id', 'api_keys.scopes', 'api_keys.key_hash',
      'api_keys.revoked_at', 'api_keys.last_used_at', 'nodes.path as node_path', 'nodes.type as node_type', 'accounts.plan_features',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function insertKey(db: Kysely<DB>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function revokeKey(db: Kysely<DB>, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked_at: at })
    .where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return true;
  return (await db.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function markKeyUsed(db: Kysely<DB>, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** The account's keys that are not revoked, with their node's name and path, newest first. */
export async function listAccountKeys(db: Kysely<DB>, accountId: string): Promise<Array<ApiKeyRow & { node_name: string; node_path: string }>> {
  return db.selectFrom('api_keys').innerJoin('nodes', 'nodes.id', 'api_keys.node_id')
    .selectAll('api_keys').select(['nodes.name as node_name', 'nodes.path as node_path'])
    .where('api_keys.account_id', '=', accountId).where('api_keys.revoked_at', 'is', null)
    .orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').execute();
}

/** The key's account and node path (revoked or not), for a caller's reach check, with its name and revocation. */
export async function findKeyOwner(db: Kysely<DB>, id: string): Promise<{ account_id: string; node_path: string; name: string | null; revoked_at: string | null } | undefined> {
  return db.selectFrom('api_keys').innerJoin('nodes', 'nodes.id', 'api_keys.node_id')
    .select(['api_keys.account_id', 'nodes.path as node_path', 'api_keys.name', 'api_keys.revoked_at']).where('api_keys.id', '=', id).executeTakeFirst();
}

/** Every key of the account, revoked ones too, newest first (the operator's view; never the hash). */
export async function listAllAccountKeys(db: Kysely<DB>, accountId: string): Promise<Array<Omit<ApiKeyRow, 'key_hash'>>> {
  return db.selectFrom('api_keys').select(['id', 'account_id', 'node_id', 'name', 'scopes', 'created_at', 'revoked_at', 'last_used_at'])
    .where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function findKeyMeta(db: Kysely<DB>, id: string): Promise<Omit<ApiKeyRow, 'key_hash'> | undefined> {
  return db.selectFrom('api_keys').select(['id', 'account_id', 'node_id', 'name', 'scopes', 'created_at', 'revoked_at', 'last_used_at'])
    .where('id', '=', id).executeTakeFirst();
}
