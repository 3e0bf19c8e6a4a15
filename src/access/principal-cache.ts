// Resolved principals, kept briefly so a hot list route costs one query, not three.
import { hashKey } from './api-key.ts';
import type { Principal } from './principal.ts';

/** Loads the principal of a key hash (null for an unknown or revoked key); src/modules/keys provides it. */
export type PrincipalLoader = (keyHash: string) => Promise<Principal | null>;

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
 * The admin API and CLI clear it when keys or nodes change; other instances see a change within the
 * TTL. Unknown and revoked keys are remembered apart (a key never becomes valid later: new keys are
 * random), so a flood of made-up keys neither reaches the database twice nor pushes real keys out.
 */
export class PrincipalCache {
  private entries = new Map<string, Entry>();
  private unknown = new Map<string, number>();

  constructor(private readonly load: PrincipalLoader, private readonly ttlMs = 2000) {}

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
}

/** Sets a map entry as the newest, dropping the oldest when the map is full. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}
