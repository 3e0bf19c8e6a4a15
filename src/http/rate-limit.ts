// Fixed-window rate limit per API key: in memory by default, in Redis when REDIS_URL is set so
// every instance shares one window. An unreachable Redis never hangs or fails a request: the
// instance counts in its own memory until Redis answers again (and says so in the log).
import { Redis } from 'ioredis';
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { AppError } from './errors.ts';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
  /** Set when the shared store could not be reached and this count is the instance's own. */
  degraded?: Error;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

/** Windows are aligned to the wall clock so every instance agrees on where a window starts. */
const windowStart = (now: number, windowMs: number): number => now - (now % windowMs);

export function memoryStore(): RateLimitStore {
  const windows = new Map<string, { start: number; end: number; count: number }>();
  const sweep = (now: number) => {
    for (const [key, window] of windows) if (window.end <= now) windows.delete(key);
  };
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      const start = windowStart(now, windowMs);
      let window = windows.get(key);
      if (!window || window.start !== start) {
        // Only finished windows are dropped, so a busy instance never forgets a live count.
        if (windows.size >= 50_000) sweep(now);
        window = { start, end: start + windowMs, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetMs: window.end - now };
    },
    async close() {
      windows.clear();
    },
  };
}

// INCR and set the expiry on the first hit, atomically (one round trip, EVALSHA once loaded).
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c`;

export interface RedisStoreOptions {
  /** Key prefix of the windows in Redis. */
  prefix?: string;
  /** The longest one count may wait for Redis before the local window answers instead. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

type RedisWithHit = Redis & { rateLimitHit(key: string, ttlMs: string): Promise<number> };

export function redisStore(url: string, options: RedisStoreOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? 'repute:rl:';
  const redis = new Redis(url, {
    connectTimeout: options.connectTimeoutMs ?? 1000,
    // Bounds every command, queued ones included: a hung or blackholed Redis costs a request
    // at most this long, after which the instance's own window decides.
    commandTimeout: options.commandTimeoutMs ?? 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    // Keep reconnecting in the background, at most every 2 s, for as long as the process lives.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  }) as RedisWithHit;
  // Connection errors surface per command (and are logged there); without a listener ioredis
  // would print every reconnection failure to stderr.
  redis.on('error', () => {});
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  const local = memoryStore();
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      const start = windowStart(now, windowMs);
      try {
        const count = Number(await redis.rateLimitHit(`${prefix}${key}:${start}`, String(windowMs + 1000)));
        return { count, resetMs: start + windowMs - now };
      } catch (error) {
        return { ...(await local.hit(key, windowMs)), degraded: error as Error };
      }
    },
    async close() {
      await local.close();
      if (redis.status === 'ready') {
        await Promise.race([redis.quit().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      }
      redis.disconnect();
    },
  };
}

export interface WindowHit {
  /** True when this hit is past the window's maximum. */
  over: boolean;
  /** Whole seconds until the window ends (at least 1). */
  resetS: number;
  /** The RateLimit-* headers of this hit. */
  headers: Record<string, string>;
  degraded?: Error;
}

/** Counts one hit of `key` in a fixed window of `max` per `windowS` seconds. */
export async function countHit(store: RateLimitStore, key: string, max: number, windowS: number): Promise<WindowHit> {
  const { count, resetMs, degraded } = await store.hit(key, windowS * 1000);
  const resetS = Math.max(1, Math.ceil(resetMs / 1000));
  const headers = {
    'RateLimit-Limit': String(max),
    'RateLimit-Remaining': String(Math.max(0, max - count)),
    'RateLimit-Reset': String(resetS),
  };
  return { over: count > max, resetS, headers, ...(degraded ? { degraded } : {}) };
}

/**
 * Counts a request against `key`'s window: sets the RateLimit-* headers, and past the limit throws
 * 429 with Retry-After. `what` names the limit in the message ("requests", "test pings of this endpoint").
 */
export function enforceWindow(reply: FastifyReply, hit: WindowHit, max: number, windowS: number, what: string): void {
  reply.headers(hit.headers);
  if (hit.over) {
    throw new AppError(429, `rate limit of ${max} ${what} per ${windowS} s exceeded; retry in ${hit.resetS} s`, {
      ...hit.headers,
      'Retry-After': String(hit.resetS),
    });
  }
}

/**
 * preValidation hook that counts the request against the key's window and sets the RateLimit-*
 * headers. It runs before validation, so a malformed request counts like any other: a client
 * cannot send unlimited invalid requests.
 */
export function rateLimit(store: RateLimitStore, max: number, windowS: number): preValidationHookHandler {
  let lastWarning = 0;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const hit = await countHit(store, request.principal.keyId, max, windowS);
    if (hit.degraded && Date.now() - lastWarning > 30_000) {
      // One line per 30 s per route is enough to page someone; more would flood the log.
      lastWarning = Date.now();
      request.log.warn({ err: hit.degraded }, 'rate-limit store unreachable: counting in this instance only');
    }
    enforceWindow(reply, hit, max, windowS, 'requests');
  };
}
