// Machine-readable error codes: the README lists exactly the codes the source declares (with their
// statuses), and the rules a client most often breaks answer their own code on both databases.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES } from '../../src/http/error-codes.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createAccount, createKey, createNode, createTree } from '../support/factories.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('README "The error envelope" lists every code the source can emit, with its status, and no other', () => {
  const section = README.slice(README.indexOf('### The error envelope'), README.indexOf('### Rate limits'));
  const listed = new Map([...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [m[1]!, { status: Number(m[2]), meaning: m[3]!.trim() }]));
  const declared = Object.entries(ERROR_CODES);
  for (const [code, { status }] of declared) {
    assert.ok(listed.has(code), `${code} is not in the README's list`);
    assert.equal(listed.get(code)!.status, status, `${code}: README says ${listed.get(code)!.status}`);
    assert.ok(listed.get(code)!.meaning.length > 10, `${code}: a meaning`);
  }
  assert.deepEqual([...listed.keys()].sort(), declared.map(([code]) => code).sort(), 'the README lists no code the source lacks');
});

eachDatabase('the rules a client breaks answer their own code', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read', 'webhooks:manage', 'guests:write']);
  const expect = async (answer: Promise<{ statusCode: number; json(): any; body: string }>, status: number, code: string) => {
    const r = await answer;
    assert.equal(r.statusCode, status, r.body);
    assert.equal(r.json().code, code, r.body);
    assert.equal(ERROR_CODES[code as keyof typeof ERROR_CODES].status, status);
  };
  await expect(t.api(key, 'GET', '/reviews?limit=0'), 400, 'limit_invalid');
  await expect(t.api(key, 'GET', '/reviews?limit=abc'), 400, 'limit_invalid');
  await expect(t.api(key, 'GET', '/reviews?cursor=nonsense'), 400, 'cursor_invalid');
  await expect(t.api(key, 'GET', '/reviews?limt=5'), 400, 'field_unknown');
  await expect(t.api(key, 'POST', '/webhooks', { url: 'https://hooks.example.com/x', events: ['review.received'] }), 400, 'field_required');
  await expect(t.api(key, 'POST', '/webhooks', { name: 'x', url: 'https://hooks.example.com/x', events: ['nope'] }), 400, 'field_invalid');
  await expect(t.app.inject({ method: 'POST', url: '/api/v4/webhooks', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{"name":' }), 400, 'invalid_json');
  await expect(t.app.inject({ method: 'POST', url: '/api/v4/webhooks', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, payload: 'x' }), 415, 'unsupported_media_type');
  await expect(t.api(null, 'GET', '/reviews'), 401, 'unauthorized');
  await expect(t.api(key, 'GET', '/nodes'), 403, 'forbidden_scope');
  await expect(t.api(key, 'GET', '/reviews/0193a7c2-0000-7000-8000-000000000000'), 404, 'not_found');
  await expect(t.api(key, 'DELETE', '/reviews'), 405, 'method_not_allowed');
  await expect(t.api(key, 'POST', '/guests', { email: 'a@example.com' }), 422, 'property_invalid');

  // A plan without the feature, and a full endpoint allowance.
  const small = await createAccount(t, { plan_features: ['reviews', 'webhooks'], webhook_endpoint_limit: 0 });
  const smallRoot = await createNode(t, small, 'Solo', 'account', null);
  const smallKey = await createKey(t, small, smallRoot, ['analytics:read', 'webhooks:manage']);
  await expect(t.api(smallKey, 'GET', `/analytics/scores?node_id=${smallRoot}`), 403, 'feature_not_in_plan');
  await expect(t.api(smallKey, 'POST', '/webhooks', { name: 'x', url: 'https://hooks.example.com/x', events: ['review.received'] }), 409, 'endpoint_limit_reached');

  // A guest erased under GDPR cannot be pushed again.
  const guest = { property_id: tree.properties[0], email: 'erased@example.com' };
  assert.equal((await t.api(key, 'POST', '/guests', guest)).statusCode, 201);
  assert.equal((await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, guest)).statusCode, 200);
  await expect(t.api(key, 'POST', '/guests', guest), 409, 'guest_erased');
});
