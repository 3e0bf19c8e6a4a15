// Rate limiting of GET /reviews: headers, 429 + Retry-After, per-key windows, window reset,
// one window shared by instances through the real Redis, a closed or black-holed Redis (fast local
// fallback) and the return to shared windows when Redis answers again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ConfigError } from '../../src/config.ts';
import { redisStore } from '../../src/http/rate-limit.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTestApp, dialects } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { freePort } from '../support/ports.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { until } from '../webhooks/helpers.ts';

const DAY = '86400';
const REDIS_URL = process.env.REDIS_URL;

function assertHeaders(r: LightMyRequestResponse, max: number, remaining: number): number {
  assert.equal(r.headers['ratelimit-limit'], String(max), r.body);
  assert.equal(r.headers['ratelimit-remaining'], String(remaining), r.body);
  const reset = String(r.headers['ratelimit-reset']);
  assert.match(reset, /^\d+$/);
  assert.ok(Number(reset) >= 1 && Number(reset) <= 86_400, reset);
  return Number(reset);
}

function assertLimited(r: LightMyRequestResponse, max: number): void {
  assert.equal(r.statusCode, 429, r.body);
  assertHeaders(r, max, 0);
  const retryAfter = String(r.headers['retry-after']);
  assert.match(retryAfter, /^\d+$/, 'Retry-After is whole seconds');
  assert.equal(retryAfter, r.headers['ratelimit-reset']);
  assert.match(r.json().error, /rate limit/);
}

/**
 * Windows are aligned to the clock: a probe key's answer says how long the current window lasts;
 * in its last seconds, wait for the next one so a day-long scenario fits in one window.
 */
async function awayFromWindowEnd(probe: LightMyRequestResponse): Promise<void> {
  const reset = Number(probe.headers['ratelimit-reset']);
  if (reset <= 30) await new Promise((resolve) => setTimeout(resolve, reset * 1000 + 100));
}

eachDatabase('GET /reviews: RateLimit headers on every answer, 429 with Retry-After after max, one window per key', async (t) => {
  const tree = await createTree(t);
  const keyA = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const keyB = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  await awayFromWindowEnd(await t.api(await createKey(t, tree.accountId, tree.root, ['reviews:read']), 'GET', '/reviews'));

  for (let i = 1; i <= 2; i++) {
    const r = await t.api(keyA, 'GET', '/reviews');
    assert.equal(r.statusCode, 200, r.body);
    assertHeaders(r, 3, 3 - i);
  }
  // A malformed request counts too: it is refused, and it uses up the window like any other.
  const bad = await t.api(keyA, 'GET', '/reviews?limit=0');
  assert.equal(bad.statusCode, 400, bad.body);
  assertHeaders(bad, 3, 0);
  assertLimited(await t.api(keyA, 'GET', '/reviews'), 3);
  assertLimited(await t.api(keyA, 'GET', '/reviews?limit=5'), 3);

  // Another key has its own window.
  const other = await t.api(keyB, 'GET', '/reviews');
  assert.equal(other.statusCode, 200, other.body);
  assertHeaders(other, 3, 2);

  // Only the rate-limited routes count: the same key still reads single reviews and its identity.
  assert.equal((await t.api(keyA, 'GET', `/reviews/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)).statusCode, 404);
  assert.equal((await t.api(keyA, 'GET', '/whoami')).statusCode, 200);
}, { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: DAY } });

eachDatabase('POST /guests: a body that is not JSON, of another media type, or breaking the schema counts like any other', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const post = (payload: string, contentType: string) =>
    t.app.inject({ method: 'POST', url: '/api/v4/guests', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, payload });
  await awayFromWindowEnd(await post('{"email": 1}', 'application/json'));
  const refusals: Array<[string, string, number]> = [['{bad', 'application/json', 400], ['', 'application/json', 400], ['{"email":"a@b.example"}', 'text/plain', 415]];
  let remaining = 3;
  for (const [payload, contentType, status] of refusals) {
    const r = await post(payload, contentType);
    assert.equal(r.statusCode, status, r.body);
    remaining -= 1;
    assertHeaders(r, 4, remaining);
  }
  assertLimited(await post('{"email":"ann@hotel.example"}', 'application/json'), 4);
  assertLimited(await post('{bad', 'application/json'), 4);
}, { env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_S: DAY } });

eachDatabase('GET /reviews: a limited key is served again once Retry-After has passed', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  let limited: LightMyRequestResponse | null = null;
  // A one-second window may turn between two requests; keep asking until one is refused.
  for (let i = 0; i < 10 && limited === null; i++) {
    const r = await t.api(key, 'GET', '/reviews');
    if (r.statusCode === 429) limited = r;
    else assert.equal(r.statusCode, 200, r.body);
  }
  assert.ok(limited, 'a second request inside one window is refused');
  assertLimited(limited, 1);
  assert.equal(limited.headers['retry-after'], '1');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const again = await t.api(key, 'GET', '/reviews');
  assert.equal(again.statusCode, 200, again.body);
  assertHeaders(again, 1, 0);
}, { env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_S: '1' } });

if (!REDIS_URL) {
  console.log('REDIS_URL is not set: the shared-window test against a real Redis is not registered');
} else {
  for (const dialect of dialects) {
    test(`two instances with REDIS_URL share one window per key [${dialect}]`, { timeout: 120_000 }, async () => {
      const env = { REDIS_URL, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_S: DAY };
      const one = await createTestApp(dialect, { env });
      const two = await createTestApp(dialect, { env, database: one.testDb });
      try {
        const tree = await createTree(one);
        // A fresh key (a new UUIDv7 id) names a window no parallel run can share.
        const key = await createKey(one, tree.accountId, tree.root, ['reviews:read']);
        await awayFromWindowEnd(await one.api(await createKey(one, tree.accountId, tree.root, ['reviews:read']), 'GET', '/reviews'));
        const instances = [one, two, one, two];
        for (const [i, instance] of instances.entries()) {
          const r = await instance.api(key, 'GET', '/reviews');
          assert.equal(r.statusCode, 200, r.body);
          assertHeaders(r, 4, 3 - i);
        }
        assertLimited(await one.api(key, 'GET', '/reviews'), 4);
        assertLimited(await two.api(key, 'GET', '/reviews'), 4);
      } finally {
        await two.close();
        await one.close();
      }
    });
  }
}

type Broken = 'closed' | 'black-holed' | 'hung';

/**
 * A Redis that is closed (nothing listens on the port), black-holed (accepts, never answers), or
 * hung: the real one, answering until `fail()` silences the open connection and every new one.
 */
async function brokenRedis(kind: Broken): Promise<{ url: string; fail(): void; close(): Promise<void> }> {
  if (kind === 'closed') return { url: `redis://127.0.0.1:${await freePort()}`, fail() {}, close: async () => {} };
  const real = new URL(REDIS_URL ?? 'redis://127.0.0.1:9');
  const proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 6379) }, kind === 'hung' ? 'forward' : 'blackhole');
  return { url: `redis://127.0.0.1:${proxy.port}`, fail: () => proxy.mode('blackhole'), close: () => proxy.close() };
}

for (const kind of ['closed', 'black-holed', ...(REDIS_URL ? ['hung' as const] : [])] as const) {
  for (const dialect of dialects) {
    test(`a Redis that is ${kind} costs a request a few ms: 20 requests well under 3 s, counted in the local window [${dialect}]`, { timeout: 120_000 }, async () => {
      const redis = await brokenRedis(kind);
      const t = await createTestApp(dialect, { env: { REDIS_URL: redis.url, RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_S: DAY } });
      try {
        const tree = await createTree(t);
        const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
        await awayFromWindowEnd(await t.api(await createKey(t, tree.accountId, tree.root, ['reviews:read']), 'GET', '/reviews'));
        redis.fail();
        const started = Date.now();
        for (let i = 1; i <= 20; i++) {
          const r = await t.api(key, 'GET', '/reviews');
          assert.equal(r.statusCode, 200, r.body);
          // The instance's own window counts: the headers go on as if Redis were there.
          assertHeaders(r, 20, 20 - i);
        }
        const took = Date.now() - started;
        // Waiting for Redis each time would take 20 × 0.5 s; failing fast takes a few ms each.
        assert.ok(took < 3000, `20 requests took ${took} ms`);
        assertLimited(await t.api(key, 'GET', '/reviews'), 20);
      } finally {
        await t.close();
        await redis.close();
      }
    });
  }
}

if (REDIS_URL) {
  test('a REDIS_URL naming a database this Redis lacks stops start-up with a line naming REDIS_URL, not counts in database 0', async () => {
    const url = new URL(REDIS_URL);
    url.pathname = '/99999';
    const store = redisStore(url.href);
    try {
      await assert.rejects(store.connected(), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^REDIS_URL names database 99999, which this Redis does not have \(ERR DB index is out of range/);
        return true;
      });
    } finally {
      await store.close();
    }
  });
}

if (REDIS_URL) {
  const real = new URL(REDIS_URL);
  for (const mode of ['refuse', 'blackhole'] as const) {
    test(`a Redis that was ${mode === 'refuse' ? 'down' : 'black-holed'} is used again by itself once it answers: windows are shared again`, { timeout: 120_000 }, async () => {
      const proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 6379) }, mode);
      const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW_S: DAY };
      const one = await createTestApp('sqlite', { env });
      const two = await createTestApp('sqlite', { env, database: one.testDb });
      try {
        const tree = await createTree(one);
        const newKey = () => createKey(one, tree.accountId, tree.root, ['reviews:read']);
        await awayFromWindowEnd(await one.api(await newKey(), 'GET', '/reviews'));
        // While Redis is out, each instance counts alone: both see the key's first request.
        const alone = await newKey();
        assertHeaders(await one.api(alone, 'GET', '/reviews'), 10, 9);
        assertHeaders(await two.api(alone, 'GET', '/reviews'), 10, 9);

        proxy.mode('forward');
        const back = Date.now();
        // Within seconds, a fresh key's window is one window across both instances again.
        await until(async () => {
          const key = await newKey();
          await one.api(key, 'GET', '/reviews');
          return (await two.api(key, 'GET', '/reviews')).headers['ratelimit-remaining'] === '8';
        }, 15_000, 'the instances to share a window again');
        const recovered = Date.now() - back;
        assert.ok(recovered < 10_000, `shared again after ${recovered} ms`);
        const key = await newKey();
        for (const [i, instance] of [one, two, one, two].entries()) assertHeaders(await instance.api(key, 'GET', '/reviews'), 10, 9 - i);
      } finally {
        await two.close();
        await one.close();
        await proxy.close();
      }
    });
  }
}

