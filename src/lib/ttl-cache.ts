// A small in-memory cache whose entries expire after a time-to-live; emptied whole when it reaches
// its size bound (cheaper than tracking the oldest, and the entries are quick to fetch again).
// Owned by the context of one database (src/context.ts), never shared across databases.

export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(readonly ttlMs: number, readonly maxEntries: number) {}

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.expires > now ? entry.value : undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    if (this.#entries.size > this.maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, expires: now + this.ttlMs });
  }
}
