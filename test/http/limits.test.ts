// Limits an attacker would otherwise find missing: test pings per webhook endpoint (no flood of pings), failed
// authentications per client address (API keys and the admin token), the admin token's length.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { createEndpoint, deliveries } from '../webhooks/helpers.ts';

const NO_ACCOUNT = '0193a7c2-0000-7000-8000-000000000000';
const madeUpKey = () => `rpt_${randomBytes(32).toString('base64url').slice(0, 43)}`;

function assertRefused(r: LightMyRequestResponse, code: string): void {
  assert.equal(r.statusCode, 429, r.body);
  assert.deepEqual(Object.keys(r.json()), ['error', 'code']);
  assert.equal(r.json().code, code);
  const retry = Number(r.headers['retry-after']);
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${r.headers['retry-after']}`);
}

eachDatabase('POST /webhooks/{id}/test queues at most WEBHOOK_TEST_LIMIT pings a minute per endpoint; past it, 200 with the latest ping, nothing new', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const first = (await createEndpoint(t, key, 'https://hooks.example.com/a')).endpoint.id;
  const second = (await createEndpoint(t, key, 'https://hooks.example.com/b')).endpoint.id;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await t.api(key, 'POST', `/webhooks/${first}/test`);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['ratelimit-limit'], '3');
    assert.equal(r.headers['ratelimit-remaining'], String(2 - i));
    ids.push(r.json().id);
  }
  // The contract answers this route 200 or 404 only: past the window, the latest ping again.
  const past = await t.api(key, 'POST', `/webhooks/${first}/test`);
  assert.equal(past.statusCode, 200, past.body);
  assert.equal(past.json().id, ids[2]);
  assert.equal(past.json().event_type, 'ping');
  assert.equal(past.headers['ratelimit-remaining'], '0');
  assert.equal((await deliveries(t, key, first)).length, 3, 'nothing new was queued');
  // A re-send (README: 429 past the window) of a delivery the endpoint does not have is 404 first.
  assert.equal((await t.api(key, 'POST', `/webhooks/${first}/deliveries/${NO_ACCOUNT}/retry`)).statusCode, 404);
  assertRefused(await t.api(key, 'POST', `/webhooks/${first}/deliveries/${ids[0]}/retry`), 'rate_limited');
  // Another endpoint has its own window; a made-up id is 404 and fills no window.
  assert.equal((await t.api(key, 'POST', `/webhooks/${second}/test`)).statusCode, 200);
  for (let i = 0; i < 5; i++) assert.equal((await t.api(key, 'POST', `/webhooks/${NO_ACCOUNT}/test`)).statusCode, 404);
}, { env: { WEBHOOK_TEST_LIMIT: '3' } });

eachDatabase('made-up API keys: past AUTH_FAILURE_LIMIT failures an address gets 429 with Retry-After; other addresses and known keys go on', async (t) => {
  const tree = await createTree(t);
  const created = (await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.root, scopes: ['reviews:read'] })).json();
  const key: string = created.key;
  const from = (remoteAddress: string, bearer: string) =>
    t.app.inject({ method: 'GET', url: '/api/v4/reviews', remoteAddress, headers: { authorization: `Bearer ${bearer}` } });
  assert.equal((await from('203.0.113.7', key)).statusCode, 200, 'the key is known (and now cached)');
  for (let i = 0; i < 3; i++) assert.equal((await from('203.0.113.7', madeUpKey())).statusCode, 401);
  assertRefused(await from('203.0.113.7', madeUpKey()), 'auth_throttled');
  assertRefused(await from('203.0.113.7', 'not-even-a-key'), 'auth_throttled');
  // A key just seen valid still passes from there: one client cannot lock out others behind its address.
  assert.equal((await from('203.0.113.7', key)).statusCode, 200);
  // Another address is counted apart.
  assert.equal((await from('198.51.100.9', madeUpKey())).statusCode, 401);
  assert.equal((await from('198.51.100.9', key)).statusCode, 200);
  // One seen valid lately whose cache entry has lapsed passes too: it is looked up again; revoked, it is
  // one more failure from an address past its limit.
  t.ctx.principals.clear();
  assert.equal((await from('203.0.113.7', key)).statusCode, 200);
  const other = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  assertRefused(await from('203.0.113.7', other), 'auth_throttled'); // valid, but never seen: refused before its look-up
  assert.equal((await t.admin('DELETE', `/api-keys/${created.id}`)).statusCode, 200);
  assertRefused(await from('203.0.113.7', key), 'auth_throttled');
  assert.equal((await from('198.51.100.9', key)).statusCode, 401);
}, { env: { AUTH_FAILURE_LIMIT: '3' } });

eachDatabase('wrong admin tokens: past AUTH_FAILURE_LIMIT an address is refused, the right token only if it was not used from there lately; others are not; a missing token counts nowhere', async (t) => {
  const from = (remoteAddress: string, token: string) =>
    t.app.inject({ method: 'GET', url: `/admin/v1/deliveries/${NO_ACCOUNT}`, remoteAddress, headers: { authorization: `Bearer ${token}` } });
  // 404: the token was accepted (there is no such delivery).
  assert.equal((await from('203.0.113.7', ADMIN_TOKEN)).statusCode, 404);
  for (let i = 0; i < 3; i++) assert.equal((await from('203.0.113.7', `wrong-token-${i}-0123456789`)).statusCode, 401);
  assertRefused(await from('203.0.113.7', 'wrong-token-x-0123456789'), 'auth_throttled');
  // No token is no guess: 401 wherever it comes from, and it fills no address's count.
  const bare = (remoteAddress: string) => t.app.inject({ method: 'GET', url: `/admin/v1/deliveries/${NO_ACCOUNT}`, remoteAddress });
  for (let i = 0; i < 5; i++) assert.equal((await bare('192.0.2.44')).statusCode, 401);
  assert.equal((await from('192.0.2.44', 'wrong-token-y-0123456789')).statusCode, 401, 'the first wrong token from there is counted as the first');
  // The right token, used from there lately, still works: the operator's tools beside a failing script.
  assert.equal((await from('203.0.113.7', ADMIN_TOKEN)).statusCode, 404);
  assert.equal((await from('198.51.100.9', ADMIN_TOKEN)).statusCode, 404);
}, { env: { AUTH_FAILURE_LIMIT: '3' } });

eachDatabase('failed authentications count in a sliding window: the limit holds within any AUTH_FAILURE_WINDOW_S, and the refusal lasts one window', async (t) => {
  const from = (bearer: string) =>
    t.app.inject({ method: 'GET', url: '/api/v4/reviews', remoteAddress: '203.0.113.8', headers: { authorization: `Bearer ${bearer}` } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  assert.equal((await from(madeUpKey())).statusCode, 401);
  // More than half a window later: two clock-aligned windows would often hold these apart.
  await sleep(1200);
  assert.equal((await from(madeUpKey())).statusCode, 401);
  const refused = await from(madeUpKey());
  assertRefused(refused, 'auth_throttled');
  assert.equal(refused.headers['retry-after'], '2', 'refused for a whole window');
  assert.match(refused.json().error, /limit 2 within 2 s/);
  await sleep(2100);
  assert.equal((await from(madeUpKey())).statusCode, 401, 'a window later the address is counted afresh');
}, { env: { AUTH_FAILURE_LIMIT: '2', AUTH_FAILURE_WINDOW_S: '2' } });

eachDatabase('behind a trusted proxy (TRUST_PROXY) failures count per X-Forwarded-For client, not per proxy', async (t) => {
  const via = (client: string, bearer: string) => t.app.inject({
    method: 'GET', url: '/api/v4/reviews', remoteAddress: '127.0.0.1',
    headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': client },
  });
  for (let i = 0; i < 2; i++) assert.equal((await via('203.0.113.7', madeUpKey())).statusCode, 401);
  assertRefused(await via('203.0.113.7', madeUpKey()), 'auth_throttled');
  assert.equal((await via('198.51.100.9', madeUpKey())).statusCode, 401, 'another client behind the same proxy');
}, { env: { AUTH_FAILURE_LIMIT: '2', TRUST_PROXY: '127.0.0.1' } });

test('start-up refuses a short admin token and bad limit settings with one line naming the variable', () => {
  const base = { DATABASE_URL: 'sqlite::memory:', REPUTE_SECRET_KEY: SECRET_KEY };
  const cases: [Record<string, string>, string][] = [
    [{ REPUTE_ADMIN_TOKEN: 'a' }, 'REPUTE_ADMIN_TOKEN'], [{ REPUTE_ADMIN_TOKEN: 'fifteen-chars-x' }, 'REPUTE_ADMIN_TOKEN'],
    [{ WEBHOOK_TEST_LIMIT: '0' }, 'WEBHOOK_TEST_LIMIT'], [{ AUTH_FAILURE_LIMIT: 'many' }, 'AUTH_FAILURE_LIMIT'],
    [{ AUTH_FAILURE_WINDOW_S: '0' }, 'AUTH_FAILURE_WINDOW_S'], [{ REQUEST_TIMEOUT_MS: '10' }, 'REQUEST_TIMEOUT_MS'],
    [{ IDLE_TIMEOUT_MS: '1e9' }, 'IDLE_TIMEOUT_MS'], [{ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'], [{ TRUST_PROXY: '10.0.0.0/8/1' }, 'TRUST_PROXY'],
  ];
  for (const [env, name] of cases) {
    assert.throws(() => loadConfig({ ...base, ...env }), (error: Error) => {
      assert.ok(error instanceof ConfigError, `${JSON.stringify(env)}: ${error.message}`);
      assert.match(error.message, new RegExp(`^${name} `));
      assert.ok(!error.message.includes('\n'));
      return true;
    }, JSON.stringify(env));
  }
  assert.equal(loadConfig({ ...base, REPUTE_ADMIN_TOKEN: 'sixteen-chars-xx' }).adminToken, 'sixteen-chars-xx');
  assert.equal(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy, '10.0.0.0/8,loopback');
});
