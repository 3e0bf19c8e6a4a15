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
 * Entries are found by the key as presented and hashed only to load it: a SHA-256 per request cost
 * more than the rest of a cached look-up. The key is in this process's memory anyway while its
 * request runs; here it stays no longer than its entry.
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
    const cached = this.entries.get(key);
    return cached && cached.expires > Date.now() ? cached.value : undefined;
  }

  resolve(key: string): Promise<Principal | null> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expires > now) return cached.principal;
    const unknownUntil = this.unknown.get(key);
    if (unknownUntil !== undefined && unknownUntil > now) return Promise.resolve(null);
    // Requests that arrive while a key loads share that one load (no stampede when an entry expires
    // under load); the entry lives for the TTL from when the load finished, and a failed load is forgotten.
    const entry: Entry = { principal: this.load(hashKey(key)), expires: Number.POSITIVE_INFINITY };
    remember(this.entries, key, entry);
    entry.principal.then(
      (principal) => {
        if (principal !== null) {
          entry.value = principal;
          entry.expires = Date.now() + this.ttlMs;
          return;
        }
        if (this.entries.get(key) === entry) this.entries.delete(key);
        remember(this.unknown, key, Date.now() + UNKNOWN_TTL_MS);
      },
      () => { if (this.entries.get(key) === entry) this.entries.delete(key); },
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
