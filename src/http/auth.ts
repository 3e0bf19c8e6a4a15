// Bearer-key authentication: key → principal (account, node subtree, scopes, plan), and the checks
// every public route makes (401 for a bad key, 403 for a missing scope or plan feature).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { accountNodeCount, PER_NODE_UNION_MAX, type SubtreeScope } from '../db/subtree-page.ts';
import { AppError, domainError } from './errors.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { hashKey, looksLikeKey, type Scope } from '../modules/keys/service.ts';
import { findKeyByHash } from '../modules/keys/repository.ts';
import { listSubtree } from '../modules/nodes/repository.ts';

import type { Feature } from './features.ts';

export { FEATURES, type Feature } from './features.ts';

export interface Principal {
  keyId: string;
  accountId: string;
  nodeId: string;
  nodeType: string;
  scopes: string[];
  features: Set<string>;
  /** True when the key is bound to the account's root node: its subtree is the whole account. */
  isAccountRoot: boolean;
  /** Ids of the key's node and every node below it. */
  subtree: string[];
  /** The account's node count, when the subtree page shape needs it (subtrees of 2 to 64 nodes). */
  accountNodes?: number;
  inSubtree(nodeId: string): boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** Most keys remembered at once, valid and unknown each; beyond, the oldest entry goes first. */
const MAX_ENTRIES = 10_000;
/** How long a key found unknown or revoked is answered 401 without asking the database again. */
const UNKNOWN_TTL_MS = 60_000;

interface Entry {
  principal: Promise<Principal | null>;
  /** Set once the load found a valid key. */
  value?: Principal;
  expires: number;
}

/**
 * Resolved principals are kept briefly so a hot list route costs one query, not three. The admin
 * API and CLI clear it when keys or nodes change; other instances see a change within the TTL.
 * Unknown and revoked keys are remembered apart (a key never becomes valid later: new keys are
 * random), so a flood of made-up keys neither reaches the database twice nor pushes real keys out.
 */
export class PrincipalCache {
  private entries = new Map<string, Entry>();
  private unknown = new Map<string, number>();

  /** @param failures counts failed authentications per client address (none: not throttled). */
  constructor(private readonly db: Kysely<DB>, private readonly ttlMs = 2000, readonly failures: AuthThrottle | null = null) {}

  clear(): void {
    this.entries.clear();
    this.unknown.clear();
  }

  /** The principal of a key already loaded and still fresh, without any I/O. */
  peek(key: string): Principal | undefined {
    const cached = this.entries.get(hashKey(key));
    return cached && cached.expires > Date.now() ? cached.value : undefined;
  }

  resolve(key: string): Promise<Principal | null> {
    const keyHash = hashKey(key);
    const now = Date.now();
    const cached = this.entries.get(keyHash);
    if (cached && cached.expires > now) return cached.principal;
    const unknownUntil = this.unknown.get(keyHash);
    if (unknownUntil !== undefined && unknownUntil > now) return Promise.resolve(null);
    // Requests that arrive while a key loads share that one load (no stampede when an entry expires
    // under load); the entry lives for the TTL from when the load finished, and a failed load is forgotten.
    const entry: Entry = { principal: this.load(keyHash), expires: Number.POSITIVE_INFINITY };
    remember(this.entries, keyHash, entry);
    entry.principal.then(
      (principal) => {
        if (principal !== null) {
          entry.value = principal;
          entry.expires = Date.now() + this.ttlMs;
          return;
        }
        if (this.entries.get(keyHash) === entry) this.entries.delete(keyHash);
        remember(this.unknown, keyHash, Date.now() + UNKNOWN_TTL_MS);
      },
      () => { if (this.entries.get(keyHash) === entry) this.entries.delete(keyHash); },
    );
    return entry.principal;
  }

  private async load(keyHash: string): Promise<Principal | null> {
    const row = await findKeyByHash(this.db, keyHash);
    if (!row || row.revoked_at !== null) return null;
    if (!timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(keyHash))) return null;
    const subtree = (await listSubtree(this.db, row.node_path)).map((n) => n.id);
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
      ...(sized ? { accountNodes: await accountNodeCount(this.db, row.account_id) } : {}),
      inSubtree: (nodeId) => subtreeSet.has(nodeId),
    };
  }
}

/** Sets a map entry as the newest, dropping the oldest when the map is full. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** The principal's subtree as the paged list queries take it. */
export const subtreeScope = (p: Principal): SubtreeScope => ({
  accountId: p.accountId, nodes: p.subtree, wholeAccount: p.isAccountRoot, accountNodes: p.accountNodes,
});

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** onRequest hook for a public route: any valid key, plus the scope and plan feature when named. */
export function requireKey(cache: PrincipalCache, scope: Scope | null, feature: Feature | null): onRequestHookHandler {
  return async (request) => {
    const key = bearer(request);
    if (key === null) throw new AppError(401, 'Authorization header must be "Bearer <API key>"');
    // A key known valid passes even from a refused address (one client behind a shared address
    // must not lock out the others); any other key from there is refused before it is looked up.
    let principal: Principal | null | undefined = cache.peek(key);
    if (principal === undefined) {
      cache.failures?.check(request);
      principal = looksLikeKey(key) ? await cache.resolve(key) : null;
    }
    if (principal === null) {
      await cache.failures?.failed(request);
      throw new AppError(401, 'API key is unknown or revoked');
    }
    if (scope !== null && !principal.scopes.includes(scope)) throw domainError('forbidden_scope', `API key lacks the ${scope} scope`);
    if (feature !== null && !principal.features.has(feature)) throw domainError('feature_not_in_plan', `the account's plan does not include ${feature}`);
    request.principal = principal;
  };
}
