// Bad input gets a 4xx with { "error": "…", "code": "…" } naming the field and the rule: malformed JSON, wrong
// content type, oversized bodies, unknown routes, methods, ids and query parameters, NUL characters.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../../src/http/error-codes.ts';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN, type TestApp } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

function assertError(r: LightMyRequestResponse, status: number, pattern?: RegExp): string {
  assert.equal(r.statusCode, status, r.body);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const body = r.json();
  assert.deepEqual(Object.keys(body), ['error', 'code']);
  assert.equal(typeof body.error, 'string');
  // The code is a listed one, of this very status.
  assert.equal(ERROR_CODES[body.code as ErrorCode]?.status, status, `code ${body.code}`);
  if (pattern) assert.match(body.error, pattern);
  assert.ok(r.headers['x-request-id'], 'errors carry X-Request-Id too');
  return body.error;
}

const post = (t: TestApp, url: string, payload: string, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url, headers: { ...admin, 'content-type': contentType }, payload });

eachDatabase('malformed JSON is 400, a wrong content type 415, a body over 1 MiB 413', async (t) => {
  // Where the JSON breaks, in the parser's words.
  assertError(await post(t, '/admin/v1/accounts', '{"name": "A",'), 400, /^body is not valid JSON: .*(position|end of JSON)/i);
  // A compressed body is not decoded: said so, not called broken JSON.
  const gzipped = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { ...admin, 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: gzipSync('{"name":"A"}') });
  assert.equal(assertError(gzipped, 415), 'Content-Encoding gzip is not supported: send the body uncompressed');
  assertError(await post(t, '/admin/v1/accounts', ''), 400, /must not be empty/);
  assertError(await post(t, '/admin/v1/accounts', 'name=A', 'application/x-www-form-urlencoded'), 415, /Content-Type: application\/json/);
  assertError(await post(t, '/admin/v1/accounts', '{"name":"A"}', 'text/plain'), 415);
  assertError(await post(t, '/admin/v1/accounts', JSON.stringify({ name: 'x'.repeat(1024 * 1024) })), 413, /1 MiB/);
  // Just under the limit is parsed and validated (and refused for the name's own length).
  assertError(await post(t, '/admin/v1/accounts', JSON.stringify({ name: 'x'.repeat(1000 * 1000) })), 400, /body\.name/);
  assert.equal((await post(t, '/admin/v1/accounts', '{"name":"Fine"}', 'application/json; charset=utf-8')).statusCode, 201);
});

eachDatabase('JSON of the wrong shape names the field and the rule', async (t) => {
  assertError(await post(t, '/admin/v1/accounts', '[]'), 400, /body must be object/);
  assertError(await post(t, '/admin/v1/accounts', '"A"'), 400, /body must be object/);
  assertError(await post(t, '/admin/v1/accounts', '{}'), 400, /body\.name is required/);
  assertError(await post(t, '/admin/v1/accounts', '{"name": 5}'), 400, /body\.name must be string/);
  assertError(await post(t, '/admin/v1/accounts', '{"name": "A", "colour": "red"}'), 400, /body\.colour is not a known field/);
  assertError(await post(t, '/admin/v1/accounts', '{"name": "A", "plan_features": ["reviews", "teleport"]}'), 400, /body\.plan_features/);
  assertError(await post(t, '/admin/v1/accounts', '{"name": "A\\u0000B"}'), 400, /body\.name must not contain the NUL character/);
  // Valid JSON whose keys would reach an object's prototype: refused at any depth, and said so.
  for (const body of ['{"__proto__": {"name": "A"}}', '{"name": "A", "x": {"__proto__": 1}}', '{"name": "A", "x": {"constructor": {"prototype": 1}}}']) {
    assert.equal(assertError(await post(t, '/admin/v1/accounts', body), 400), 'body holds a "__proto__" key, or a "constructor" key with a "prototype": neither is taken, at any depth', body);
  }
});

eachDatabase('a value outside a union names the allowed values once, and a failing branch wins over "must be null"', async (t) => {
  const tree = await createTree(t);
  const review = { node_id: tree.properties[0], platform: 'google', external_id: 'e-1', reviewed_at: '2026-01-01T00:00:00Z' };
  const cases: [Record<string, unknown>, string][] = [
    [{ sentiment: 'meh' }, 'body.sentiment must be one of: positive, neutral, negative, null'],
    [{ rating: 7 }, 'body.rating must be <= 5'],
    [{ rating: 'five' }, 'body.rating must be number or null'],
    [{ reviewed_at: 'yesterday' }, 'body.reviewed_at must be a date-time with an offset (2026-11-22T14:00:00Z or +01:00) between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z'],
  ];
  for (const [change, message] of cases) {
    assert.equal(assertError(await t.admin('POST', `/accounts/${tree.accountId}/reviews`, { ...review, ...change }), 400), message);
  }
  const rule = await t.admin('POST', `/accounts/${tree.accountId}/alert-rules`, { node_id: tree.properties[0], sentiments: ['meh'] });
  assert.equal(assertError(rule, 400), 'body.sentiments.0 must be one of: positive, neutral, negative');
});

eachDatabase('unknown routes and ids answer 404; a known path with another method 405 with Allow', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  assertError(await t.api(key, 'GET', '/nope'), 404, /no route GET \/api\/v4\/nope/);
  // The root is the dashboard's (a sign-in redirect); another path outside every route is 404.
  assertError(await t.app.inject({ method: 'GET', url: '/nope' }), 404);
  for (const id of ['not-a-uuid', '123', '%00', encodeURIComponent("' or 1=1 --"), '00000000-0000-0000-0000-000000000000']) {
    assertError(await t.api(key, 'GET', `/reviews/${id}`), 404);
    assertError(await t.admin('PATCH', `/reviews/${id}`, { is_hidden: true }), 404);
  }
  assertError(await t.admin('DELETE', '/api-keys/%00'), 404);

  const wrong = await t.api(key, 'DELETE', '/reviews/abc');
  assertError(wrong, 405, /DELETE is not allowed/);
  assert.equal(wrong.headers.allow, 'GET, HEAD, OPTIONS');
  const wrongAdmin = await t.admin('GET', `/accounts/${tree.accountId}/reviews`);
  assertError(wrongAdmin, 405);
  assert.equal(wrongAdmin.headers.allow, 'POST, OPTIONS');
});

eachDatabase('HEAD answers like GET without a body; OPTIONS lists the allowed methods', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const get = await t.api(key, 'GET', '/nodes');
  const head = await t.api(key, 'HEAD', '/nodes');
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-type'], get.headers['content-type']);
  assert.equal((await t.api(null, 'HEAD', '/nodes')).statusCode, 401);
  const options = await t.api(null, 'OPTIONS', '/reviews/x');
  assert.equal(options.statusCode, 204);
  assert.equal(options.headers.allow, 'GET, HEAD, OPTIONS');
  assertError(await t.api(null, 'OPTIONS', '/nope'), 404);
});

eachDatabase('without REPUTE_ADMIN_TOKEN the operator plane is 404 for every method', async (t) => {
  for (const [method, url] of [['POST', '/admin/v1/accounts'], ['GET', '/admin/v1/accounts'], ['OPTIONS', '/admin/v1/accounts']] as const) {
    assertError(await t.app.inject({ method, url, headers: admin }), 404);
  }
}, { env: { REPUTE_ADMIN_TOKEN: '' } });

eachDatabase('unknown query parameters answer 400 naming them, on paginated and plain routes alike', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  assertError(await t.api(key, 'GET', '/reviews?limt=10'), 400, /querystring\.limt is not a known field/);
  assertError(await t.api(key, 'GET', '/nodes?cursor=abc'), 400, /querystring\.cursor is not a known field/);
  assertError(await t.api(key, 'GET', '/whoami?debug=1'), 400, /querystring\.debug is not a known field/);
  assertError(await t.api(key, 'GET', '/reviews?limit=10&limit=20'), 400, /querystring\.limit/);
  assertError(await t.api(key, 'GET', '/reviews?cursor=%00'), 400, /querystring\.cursor must not contain the NUL character/);
  assert.equal((await t.api(key, 'GET', '/reviews?limit=10')).statusCode, 200);
  assert.equal((await t.api(key, 'GET', '/reviews/')).statusCode, 200, 'a trailing slash is the same route');
});
