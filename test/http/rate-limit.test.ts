// Rate limiting of GET /reviews: headers, 429 + Retry-After, per-key windows, window reset,
// one window shared by instances through the real Redis, and an unreachable or hung Redis.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { eachDatabase } from '../support/each-database.ts';
import { createTestApp, dialects } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { freePort } from '../support/ports.ts';

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

/** A TCP server that accepts connections and never answers: a hung Redis. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let closing = false;
  const server: Server = createServer((socket) => {
    // A client reconnecting while the server closes would otherwise keep server.close() waiting.
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      closing = true;
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

for (const kind of ['down', 'hung'] as const) {
  for (const dialect of dialects) {
    test(`a Redis that is ${kind} neither hangs nor fails requests: the instance counts alone [${dialect}]`, { timeout: 120_000 }, async () => {
      const silent = kind === 'hung' ? await silentServer() : null;
      const port = silent?.port ?? (await freePort());
      const t = await createTestApp(dialect, { env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_S: DAY } });
      try {
        const tree = await createTree(t);
        const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          const r = await t.api(key, 'GET', '/reviews');
          const took = Date.now() - started;
          assert.ok(took < 3000, `answered in ${took} ms`);
          assert.ok(r.headers['ratelimit-limit'], 'headers still set');
          statuses.push(r.statusCode);
        }
        // The local window may turn at most once in a day-long window: 200, 200, 429 is the rule.
        assert.deepEqual(statuses, [200, 200, 429]);
      } finally {
        await t.close();
        await silent?.close();
      }
    });
  }
}
