// Rate limits: fixed windows per API key (and per other counted thing), sliding logs where a limit
// must hold within any window (sign-in and authentication failures), and holds (locks); in memory
// by default, in Redis when REDIS_URL is set so every instance shares them. An unreachable or hung
// Redis neither fails nor slows a request: the instance counts in its own memory until Redis
// answers again (and says so in the log).
import { Redis } from 'ioredis';
import type { FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { ConfigError } from '../lib/config-error.ts';
import { AppError } from './errors.ts';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
  /** Set when the shared store could not be reached and this count is the instance's own. */
  degraded?: Error;
}

export interface RateLimitStore {
  /** Counts one hit; a count the store knows at once (its own memory) comes back as is, without a promise. */
  hit(key: string, windowMs: number): Promise<WindowCount> | WindowCount;
  /**
   * Resolves once a shared store is connected (true), or after its connect time-out (false: counts
   * are then the instance's own until it is): awaited before serving, so the first requests share
   * the window, and so start-up can say that Redis did not answer.
   */
  connected(): Promise<boolean>;
  /**
   * Records one try of `key` under `id` and answers how many tries of `key` fall within the last
   * `windowMs`, this one included: a sliding window (any `windowMs`, not clock-aligned ones), for a
   * limit that must hold exactly ("10 failures within 15 minutes"), where a fixed window lets twice
   * the limit through around its end.
   */
  record(key: string, id: string, windowMs: number): Promise<number>;
  /**
   * Forgets the try recorded under `id`: a try counted before its outcome was known (so concurrent
   * tries cannot all pass a check made before any of them counted) that turned out not to count.
   */
  forget(key: string, id: string): Promise<void>;
  /**
   * Holds `key` for `ms` from now, whatever the windows (a lock that must last its full time even
   * when it starts at the end of a window); a second hold while one runs starts it again.
   */
  hold(key: string, ms: number): Promise<void>;
  /** Milliseconds left on a hold of `key`; 0 when there is none. */
  heldMs(key: string): Promise<number>;
  close(): Promise<void>;
}

/** Windows are aligned to the wall clock so every instance agrees on where a window starts. */
const windowStart = (now: number, windowMs: number): number => now - (now % windowMs);

export function memoryStore(): RateLimitStore {
  const windows = new Map<string, { start: number; end: number; count: number }>();
  const holds = new Map<string, number>();
  /** key → its tries (id → when, ms) and when the last of them leaves its window. */
  const logs = new Map<string, { tries: Map<string, number>; until: number }>();
  const sweep = (now: number) => {
    for (const [key, window] of windows) if (window.end <= now) windows.delete(key);
    for (const [key, until] of holds) if (until <= now) holds.delete(key);
    for (const [key, log] of logs) if (log.until <= now) logs.delete(key);
  };
  return {
    connected: async () => true,
    hit(key, windowMs) {
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
    async record(key, id, windowMs) {
      const now = Date.now();
      let log = logs.get(key);
      if (!log) {
        if (logs.size >= 50_000) sweep(now);
        log = { tries: new Map(), until: 0 };
        logs.set(key, log);
      }
      for (const [tryId, at] of log.tries) if (at <= now - windowMs) log.tries.delete(tryId);
      log.tries.set(id, now);
      log.until = now + windowMs;
      return log.tries.size;
    },
    async forget(key, id) {
      logs.get(key)?.tries.delete(id);
    },
    async hold(key, ms) {
      const now = Date.now();
      if (holds.size >= 50_000) sweep(now);
      holds.set(key, now + ms);
    },
    async heldMs(key) {
      return Math.max(0, (holds.get(key) ?? 0) - Date.now());
    },
    async close() {
      windows.clear();
      holds.clear();
      logs.clear();
    },
  };
}

// INCR and set the expiry on the first hit, atomically (one round trip, EVALSHA once loaded).
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c`;
// A sliding window's log as a sorted set of tries scored by time: drop those out of the window, add
// this one, keep the set as long as the window, count (one round trip). ARGV: now, window ms, id.
const RECORD = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])`;

export interface RedisStoreOptions {
  /** Key prefix of the windows in Redis. */
  prefix?: string;
  /** The longest one count waits for a connected Redis before the local window answers instead. */
  commandTimeoutMs?: number;
}

type RedisWithHit = Redis & {
  rateLimitHit(key: string, ttlMs: string): Promise<number>;
  rateLimitRecord(key: string, now: string, windowMs: string, id: string): Promise<number>;
};

/**
 * Redis on a local network answers in well under a millisecond; this much means it is in trouble.
 * Not less: on a starved CPU the timer can fire before a reply that did arrive is read.
 */
const COMMAND_TIMEOUT_MS = 250;
/** After a failed count, counts skip Redis for this long (the circuit is open). */
const PAUSE_MS = 2000;
/** How long a connection attempt may take (and start-up waits for the first one at most). */
const CONNECT_TIMEOUT_MS = 1000;

export function redisStore(url: string, options: RedisStoreOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? 'repute:rl:';
  const redis = new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
    // Not connected: fail at once (the local window answers) rather than queue the count.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A connection that stops answering (a hung or black-holed Redis) is dropped and opened again.
    socketTimeout: 1000,
    // Keep reconnecting in the background, at least every second, for as long as the process lives.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  }) as RedisWithHit;
  // Connection errors surface per command (and are logged there); without a listener ioredis
  // would print every reconnection failure to stderr. One is kept: a database number (REDIS_URL's
  // /n) this Redis does not have fails ioredis's SELECT, which then counts in database 0 unsaid.
  let wrongDatabase: Error | null = null;
  redis.on('error', (error: Error) => {
    if (/DB index is out of range/i.test(error.message)) wrongDatabase = error;
  });
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  redis.defineCommand('rateLimitRecord', { numberOfKeys: 1, lua: RECORD });
  const local = memoryStore();
  // The circuit: after a failure, counts skip Redis until `openUntil` (or until it is ready again),
  // so a hung Redis costs only the counts already sent when it stopped answering, not every one
  // (by the end of the pause socketTimeout has dropped the silent connection: no count waits).
  // Until its first connection (milliseconds after start) an instance counts locally too.
  let openUntil = 0;
  let lastError: Error = new Error('Redis is not connected');
  redis.on('ready', () => {
    openUntil = 0;
  });
  const fallback = async (key: string, windowMs: number): Promise<WindowCount> => ({ ...(await local.hit(key, windowMs)), degraded: lastError });
  // SELECT's answer comes before the ready check's (one connection answers in order): by 'ready' a
  // wrong database number is known, and start-up stops on it rather than share another's counts.
  // Known only after start-up's wait (a Redis slow to answer), it leaves the instance counting in
  // its own memory, the reason in every degraded count's log line.
  const connected = new Promise<boolean>((resolve, reject) => {
    redis.once('ready', () => {
      if (wrongDatabase === null) return resolve(true);
      lastError = new ConfigError(`REDIS_URL names database ${new URL(url).pathname.slice(1)}, which this Redis does not have (${wrongDatabase.message}; its "databases" setting says how many)`);
      redis.disconnect();
      reject(lastError);
    });
    setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS).unref();
  });
  return {
    connected: () => connected,
    async hit(key, windowMs) {
      const now = Date.now();
      if (redis.status !== 'ready' || now < openUntil) return fallback(key, windowMs);
      const start = windowStart(now, windowMs);
      try {
        const count = Number(await redis.rateLimitHit(`${prefix}${key}:${start}`, String(windowMs + 1000)));
        return { count, resetMs: start + windowMs - now };
      } catch (error) {
        lastError = error as Error;
        openUntil = Date.now() + PAUSE_MS;
        return fallback(key, windowMs);
      }
    },
    async record(key, id, windowMs) {
      // Kept here too: while Redis cannot be reached, this instance still counts its own tries.
      const own = await local.record(key, id, windowMs);
      if (redis.status !== 'ready' || Date.now() < openUntil) return own;
      try {
        return Number(await redis.rateLimitRecord(`${prefix}log:${key}`, String(Date.now()), String(windowMs), id));
      } catch (error) {
        lastError = error as Error;
        openUntil = Date.now() + PAUSE_MS;
        return own;
      }
    },
    async forget(key, id) {
      await local.forget(key, id);
      if (redis.status !== 'ready' || Date.now() < openUntil) return;
      try {
        await redis.zrem(`${prefix}log:${key}`, id);
      } catch (error) {
        lastError = error as Error;
        openUntil = Date.now() + PAUSE_MS;
      }
    },
    async hold(key, ms) {
      // Kept here too: while Redis cannot be reached, this instance still honours its own holds.
      await local.hold(key, ms);
      if (redis.status !== 'ready' || Date.now() < openUntil) return;
      try {
        await redis.set(`${prefix}hold:${key}`, '1', 'PX', ms);
      } catch (error) {
        lastError = error as Error;
        openUntil = Date.now() + PAUSE_MS;
      }
    },
    async heldMs(key) {
      const own = await local.heldMs(key);
      if (redis.status !== 'ready' || Date.now() < openUntil) return own;
      try {
        return Math.max(own, Number(await redis.pttl(`${prefix}hold:${key}`)));
      } catch (error) {
        lastError = error as Error;
        openUntil = Date.now() + PAUSE_MS;
        return own;
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
  /** The RateLimit-* headers of this hit (names in lower case). */
  headers: Record<string, string>;
  degraded?: Error;
}

/** Counts one hit of `key` in a fixed window of `max` per `windowS` seconds. */
export async function countHit(store: RateLimitStore, key: string, max: number, windowS: number): Promise<WindowHit> {
  return windowHit(await store.hit(key, windowS * 1000), max);
}

/** What a window's count means for a limit of `max`. */
function windowHit({ count, resetMs, degraded }: WindowCount, max: number): WindowHit {
  const resetS = Math.max(1, Math.ceil(resetMs / 1000));
  // Named in lower case, as Fastify stores (and sends) every header name: it then has nothing to convert.
  const headers = {
    'ratelimit-limit': String(max),
    'ratelimit-remaining': String(Math.max(0, max - count)),
    'ratelimit-reset': String(resetS),
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
 * preParsing hook that counts the request against the key's window and sets the RateLimit-*
 * headers. It runs before the body is read, parsed and validated, so a malformed request (a body
 * that is not JSON, of another media type, too large, or breaking the schema) counts like any other:
 * a client cannot send unlimited invalid requests.
 */
export function rateLimit(store: RateLimitStore, max: number, windowS: number): preParsingHookHandler {
  let lastWarning = 0;
  const windowMs = windowS * 1000;
  const count = (request: FastifyRequest, reply: FastifyReply, counted: WindowCount): void => {
    const hit = windowHit(counted, max);
    if (hit.degraded && Date.now() - lastWarning > 30_000) {
      // One line per 30 s per route is enough to page someone; more would flood the log.
      lastWarning = Date.now();
      request.log.warn({ err: hit.degraded }, 'rate-limit store unreachable: counting in this instance only');
    }
    enforceWindow(reply, hit, max, windowS, 'requests');
  };
  // Callback-style on the hot path: the shared store's promise is the only wait, and a count kept
  // in this instance's memory passes without one.
  return (request, reply, payload, done) => {
    let waiting: Promise<WindowCount> | null = null;
    try {
      const counted = store.hit(request.principal.keyId, windowMs);
      if (counted instanceof Promise) waiting = counted;
      else count(request, reply, counted);
    } catch (error) {
      done(error as Error); // over the limit: the 429
      return;
    }
    // done() runs the rest of the request, so it is called outside the try: its own errors are not a count's.
    if (waiting === null) done(null, payload);
    else waiting.then((c) => count(request, reply, c)).then(() => done(null, payload), (error: Error) => done(error));
  };
}
