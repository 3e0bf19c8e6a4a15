// Fixed-window rate limit per API key: in memory by default, in Redis when REDIS_URL is set so
// every instance shares one window.
import { Redis } from 'ioredis';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { AppError } from './errors.ts';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export function memoryStore(): RateLimitStore {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      const start = now - (now % windowMs);
      let window = windows.get(key);
      if (!window || window.start !== start) {
        if (windows.size > 100_000) windows.clear();
        window = { start, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetMs: start + windowMs - now };
    },
    async close() {},
  };
}

// INCR and set the expiry on the first hit, atomically; windows are aligned to the wall clock so
// every instance agrees on where a window starts.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c`;

export function redisStore(url: string): RateLimitStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      const start = now - (now % windowMs);
      const count = Number(await redis.eval(HIT, 1, `repute:rl:${key}:${start}`, String(windowMs + 1000)));
      return { count, resetMs: start + windowMs - now };
    },
    async close() {
      await redis.quit();
    },
  };
}

/** preHandler that counts the request against the key's window and sets the RateLimit-* headers. */
export function rateLimit(store: RateLimitStore, max: number, windowS: number): preHandlerHookHandler {
  const windowMs = windowS * 1000;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { count, resetMs } = await store.hit(request.principal.keyId, windowMs);
    const resetS = Math.max(1, Math.ceil(resetMs / 1000));
    reply.header('RateLimit-Limit', String(max));
    reply.header('RateLimit-Remaining', String(Math.max(0, max - count)));
    reply.header('RateLimit-Reset', String(resetS));
    if (count > max) {
      throw new AppError(429, `rate limit of ${max} requests per ${windowS} s exceeded; retry in ${resetS} s`, {
        'Retry-After': String(resetS),
        'RateLimit-Limit': String(max),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(resetS),
      });
    }
  };
}
