// Resolved principals, kept briefly so a hot list route costs one query, not three.
import { hashKey } from './api-key.ts';
import type { Principal } from './principal.ts';

/** Loads the principal of a key hash (null for an unknown or revoked key); src/modules/keys provides it. */
export type PrincipalLoader = (keyHash: string) => Promise<Principal | null>;

/**
 * The admin API and CLI clear it when keys or nodes change; other instances see a change within the TTL.
 */
export class PrincipalCache {
  private entries = new Map<string, { principal: Promise<Principal | null>; expires: number }>();
  constructor(private readonly load: PrincipalLoader, private readonly ttlMs = 2000) {}

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
}
