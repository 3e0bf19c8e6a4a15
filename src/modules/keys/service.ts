// API keys: random, shown once, stored as SHA-256, revocable. Used by the admin API and the CLI.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { isUuid, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { findNode } from '../nodes/repository.ts';
import { insertKey, revokeKey as revokeKeyRow } from './repository.ts';

import { SCOPES } from './scopes.ts';

export { SCOPES, type Scope } from './scopes.ts';

const KEY_PREFIX = 'rpt_';
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
/** Cheap shape check before any database work: "rpt_" + 43 base64url characters (32 bytes). */
export const looksLikeKey = (key: string): boolean => /^rpt_[A-Za-z0-9_-]{43}$/.test(key);

export interface CreatedKey {
  id: string;
  key: string;
  node_id: string;
  scopes: string[];
  created_at: string;
}

export async function createKey(
  db: Kysely<DB>, accountId: string, input: { node_id: string; scopes: string[]; name?: string | null },
): Promise<CreatedKey> {
  const node = await findNode(db, input.node_id);
  if (!node || node.account_id !== accountId) throw new AppError(400, 'node_id must be a node of this account');
  const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new AppError(400, `scopes has unknown scope ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  const scopes = [...new Set(input.scopes)];
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = {
    id: newId(), account_id: accountId, node_id: node.id, name: input.name ?? null,
    scopes: JSON.stringify(scopes), key_hash: hashKey(key), created_at: nowIso(), revoked_at: null,
  };
  await insertKey(db, row);
  return { id: row.id, key, node_id: row.node_id, scopes, created_at: row.created_at };
}

export async function revokeKey(db: Kysely<DB>, id: string): Promise<void> {
  if (!isUuid(id) || !(await revokeKeyRow(db, id, nowIso()))) throw notFound('api key');
}
