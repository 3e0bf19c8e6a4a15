// API keys: random, shown once, stored as SHA-256, revocable (admin API and CLI); and what a presented
// key resolves to, for the principal cache of src/access/.
import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hashKey, newApiKey } from '../../access/api-key.ts';
import type { Principal } from '../../access/principal.ts';
import { PrincipalCache } from '../../access/principal-cache.ts';
import { SCOPES } from '../../access/scopes.ts';
import type { DB } from '../../db/schema.ts';
import { accountNodeCount, PER_NODE_UNION_MAX } from '../../db/subtree-page.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import { requireAccountNode, subtreeIds } from '../nodes/service.ts';
import { findKeyByHash, insertKey, revokeKey as revokeKeyRow } from './repository.ts';
import type { CreatedKey, KeyInput } from './schemas.ts';

export async function createKey(db: Kysely<DB>, accountId: string, input: KeyInput): Promise<CreatedKey> {
  await requireAccount(db, accountId);
  const node = await requireAccountNode(db, accountId, input.node_id);
  const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw invalid(`scopes has unknown scope ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  const scopes = [...new Set(input.scopes)];
  const key = newApiKey();
  const row = {
    id: newId(), account_id: accountId, node_id: node.id, name: input.name ?? null,
    scopes: JSON.stringify(scopes), key_hash: hashKey(key), created_at: nowIso(), revoked_at: null, last_used_at: null,
  };
  await insertKey(db, row);
  return { id: row.id, key, node_id: row.node_id, scopes, created_at: row.created_at };
}

export async function revokeKey(db: Kysely<DB>, id: string): Promise<void> {
  if (!(await lookup(id, (uuid) => revokeKeyRow(db, uuid, nowIso())))) throw notFound('api key');
}

/** The principal of a key hash: null when no key has it or the key is revoked. */
async function loadPrincipal(db: Kysely<DB>, keyHash: string): Promise<Principal | null> {
  const row = await findKeyByHash(db, keyHash);
  if (!row || row.revoked_at !== null) return null;
  if (!timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(keyHash))) return null;
  const subtree = await subtreeIds(db, row.node_path);
  const subtreeSet = new Set(subtree);
  const isAccountRoot = row.node_path.split('/').filter(Boolean).length === 1;
  const sized = !isAccountRoot && subtree.length > 1 && subtree.length <= PER_NODE_UNION_MAX;
  return {
    keyId: row.id,
    accountId: row.account_id,
    nodeId: row.node_id,
    nodeType: row.node_type,
    isAccountRoot,
    scopes: JSON.parse(row.scopes) as string[],
    features: new Set(JSON.parse(row.plan_features) as string[]),
    subtree,
    ...(sized ? { accountNodes: await accountNodeCount(db, row.account_id) } : {}),
    inSubtree: (nodeId) => subtreeSet.has(nodeId),
  };
}

/** The principal cache of a database (one per process context); ttlMs: how long a valid key's principal is kept. */
export const principalCache = (db: Kysely<DB>, ttlMs?: number): PrincipalCache =>
  new PrincipalCache((keyHash) => loadPrincipal(db, keyHash), ttlMs);
