// API keys: random, shown once, stored as SHA-256, revocable (admin API and CLI); and what a presented
// key resolves to, for the principal cache of src/access/.
import type { Kysely } from 'kysely';
import { hashKey, newApiKey } from '../../access/api-key.ts';
import type { Principal } from '../../access/principal.ts';
import { PrincipalCache } from '../../access/principal-cache.ts';
import { SCOPES } from '../../access/scopes.ts';
import type { DB } from '../../db/schema.ts';
import { unlessReadOnly } from '../../db/unavailable.ts';
import { accountNodeCount, PER_NODE_UNION_MAX } from '../../db/subtree-page.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import { NOT_WITHIN_REACH, requireAccountNode, subtreeIds } from '../nodes/service.ts';
import {
  findKeyByHash, findKeyMeta, findKeyOwner, insertKey, listAccountKeys, listAllAccountKeys, markKeyUsed, revokeKey as revokeKeyRow,
} from './repository.ts';
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

// --- a signed-in user's keys (Settings → API): the same rules, within the user's reach ----------

export interface ListedKey {
  id: string;
  name: string | null;
  node_id: string;
  node_name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

/** The keys (not revoked) bound to a node of the principal's subtree, newest first. */
export async function listKeys(db: Kysely<DB>, principal: Principal): Promise<ListedKey[]> {
  const rows = await listAccountKeys(db, principal.accountId);
  return rows.filter((row) => principal.inSubtree(row.node_id)).map((row) => ({
    id: row.id, name: row.name, node_id: row.node_id, node_name: row.node_name, scopes: JSON.parse(row.scopes) as string[],
    created_at: row.created_at, last_used_at: row.last_used_at,
  }));
}

/** Creates a key bound to a node of the principal's subtree (400 naming node_id otherwise). */
export async function createKeyWithin(db: Kysely<DB>, principal: Principal, input: KeyInput): Promise<CreatedKey> {
  if (!principal.inSubtree(input.node_id)) throw invalid(NOT_WITHIN_REACH);
  // A user grants only what they may do themselves (a node-bound owner: not webhooks:manage).
  const beyond = input.scopes.filter((s) => (SCOPES as readonly string[]).includes(s) && !principal.scopes.includes(s));
  if (beyond.length > 0) throw invalid(`scopes has ${beyond.join(', ')}, which you may not grant: it reaches beyond your part of the account`);
  return createKey(db, principal.accountId, input);
}

/** A key of the principal's account bound within its subtree, revoked or not; any other id is none. */
async function keyWithin(db: Kysely<DB>, principal: Principal, id: string) {
  const owner = await lookup(id, (uuid) => findKeyOwner(db, uuid));
  const nodeId = owner?.node_path.split('/').filter(Boolean).at(-1);
  return owner && owner.account_id === principal.accountId && nodeId !== undefined && principal.inSubtree(nodeId) ? owner : undefined;
}

/** Revokes a key bound within the principal's subtree; any other id is not found. */
export async function revokeKeyWithin(db: Kysely<DB>, principal: Principal, id: string): Promise<void> {
  if (!(await keyWithin(db, principal, id))) throw notFound('api key');
  await revokeKey(db, id);
}

/** The name of a revoked key within the principal's reach (null: unnamed); undefined for any other id. */
export async function revokedKeyName(db: Kysely<DB>, principal: Principal, id: string): Promise<string | null | undefined> {
  const key = await keyWithin(db, principal, id);
  return key?.revoked_at ? key.name : undefined;
}

/** What a principal is built from: the caller's account, node and plan (a key's row, or a signed-in user's). */
export interface PrincipalSource {
  id: string;
  account_id: string;
  node_id: string;
  node_path: string;
  node_type: string;
  plan_features: string;
  scopes: string[];
}

/** The principal of an account node: its subtree (and the account's node count where list queries need it). */
export async function principalFor(db: Kysely<DB>, source: PrincipalSource): Promise<Principal> {
  const subtree = await subtreeIds(db, source.node_path);
  const subtreeSet = new Set(subtree);
  const isAccountRoot = source.node_path.split('/').filter(Boolean).length === 1;
  const sized = !isAccountRoot && subtree.length > 1 && subtree.length <= PER_NODE_UNION_MAX;
  return {
    keyId: source.id,
    accountId: source.account_id,
    nodeId: source.node_id,
    nodeType: source.node_type,
    isAccountRoot,
    scopes: source.scopes,
    features: new Set(JSON.parse(source.plan_features) as string[]),
    subtree,
    ...(sized ? { accountNodes: await accountNodeCount(db, source.account_id) } : {}),
    inSubtree: (nodeId) => subtreeSet.has(nodeId),
  };
}

/** A key is "last used" to the minute: one write per key per minute at most, not one per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The principal of a key hash: null when no key has it or the key is revoked. The key is found by
 * the SHA-256 of what was presented, so no comparison of secrets happens here: how long the index
 * look-up takes tells a caller about hashes, and steering a hash needs its key.
 */
async function loadPrincipal(db: Kysely<DB>, keyHash: string): Promise<Principal | null> {
  const row = await findKeyByHash(db, keyHash);
  if (!row || row.revoked_at !== null) return null;
  // Loaded means presented: the principal cache loads a key at most once per TTL per instance.
  const now = Date.now();
  if (row.last_used_at === null || Date.parse(row.last_used_at) < now - LAST_USED_RESOLUTION_MS) {
    await unlessReadOnly(markKeyUsed(db, row.id, new Date(now).toISOString()));
  }
  return principalFor(db, { ...row, scopes: JSON.parse(row.scopes) as string[] });
}

/** The principal cache of a database (one per process context); ttlMs: how long a valid key's principal is kept. */
export const principalCache = (db: Kysely<DB>, ttlMs?: number): PrincipalCache =>
  new PrincipalCache((keyHash) => loadPrincipal(db, keyHash), ttlMs);

// --- the operator's view: every key of an account, revoked ones included, never its value or hash ----

export interface KeyInfo {
  id: string;
  account_id: string;
  node_id: string;
  name: string | null;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toKeyInfo = (row: Awaited<ReturnType<typeof findKeyMeta>> & object): KeyInfo => ({
  id: row.id, account_id: row.account_id, node_id: row.node_id, name: row.name, scopes: JSON.parse(row.scopes) as string[],
  created_at: row.created_at, last_used_at: row.last_used_at, revoked_at: row.revoked_at,
});

export async function accountKeys(db: Kysely<DB>, accountId: string): Promise<KeyInfo[]> {
  await requireAccount(db, accountId);
  return (await listAllAccountKeys(db, accountId)).map(toKeyInfo);
}

export async function keyInfo(db: Kysely<DB>, id: string): Promise<KeyInfo> {
  const row = await lookup(id, (uuid) => findKeyMeta(db, uuid));
  if (!row) throw notFound('API key');
  return toKeyInfo(row);
}
