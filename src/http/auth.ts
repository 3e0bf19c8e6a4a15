// Bearer-key authentication: key → principal (account, node subtree, scopes, plan), and the checks
// every public route makes (401 for a bad key, 403 for a missing scope or plan feature).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { accountNodeCount, PER_NODE_UNION_MAX, type SubtreeScope } from '../db/subtree-page.ts';
import { AppError } from './errors.ts';
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

/**
 * Resolved principals are kept briefly so a hot list route costs one query, not three. The admin
 * API and CLI clear it when keys or nodes change; other instances see a change within the TTL.
 */
export class PrincipalCache {
  private entries = new Map<string, { principal: Promise<Principal | null>; expires: number }>();
  constructor(private readonly db: Kysely<DB>, private readonly ttlMs = 2000) {}

  clear(): void {
    this.entries.clear();
  }

  resolve(key: string): Promise<Principal | null> {
    const keyHash = hashKey(key);
    const cached = this.entries.get(keyHash);
    if (cached && cached.expires > Date.now()) return cached.principal;
    // Requests that arrive while a key loads share that one load (no stampede when an entry expires
    // under load); the entry lives for the TTL from when the load finished, and a failed load is forgotten.
    if (this.entries.size > 10_000) this.entries.clear();
    const entry = { principal: this.load(keyHash), expires: Number.POSITIVE_INFINITY };
    this.entries.set(keyHash, entry);
    entry.principal.then(
      () => { entry.expires = Date.now() + this.ttlMs; },
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
    const principal = looksLikeKey(key) ? await cache.resolve(key) : null;
    if (principal === null) throw new AppError(401, 'API key is unknown or revoked');
    if (scope !== null && !principal.scopes.includes(scope)) throw new AppError(403, `API key lacks the ${scope} scope`);
    if (feature !== null && !principal.features.has(feature)) throw new AppError(403, `the account's plan does not include ${feature}`);
    request.principal = principal;
  };
}
