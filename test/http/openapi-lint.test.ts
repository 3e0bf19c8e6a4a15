// Both API documents pass `redocly lint` with the recommended rules (redocly.yaml) without an error
// or a warning, and are complete: an operationId per operation, every error status answered through
// the one Error component, the headers the server really sends, and the public document's webhooks
// section with every event type the server emits. The CLI runs from node_modules, offline.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eachDatabase } from '../support/each-database.ts';
import type { TestApp } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { EVENT_TYPES } from '../../src/events/types.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

async function lint(doc: unknown): Promise<{ errors: number; warnings: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'repute-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const result = await run(join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', file], { env, cwd: dir })
      .catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{')));
    return { errors: report.totals.errors, warnings: report.totals.warnings, output: JSON.stringify(report.problems, null, 1) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function documents(t: TestApp): Promise<{ pub: any; admin: any }> {
  const pub = await t.app.inject({ method: 'GET', url: '/api/v4/openapi.json' });
  const admin = await t.admin('GET', '/openapi.json');
  assert.equal(pub.statusCode, 200);
  assert.equal(admin.statusCode, 200, admin.body);
  return { pub: pub.json(), admin: admin.json() };
}

function operations(doc: any): [string, any][] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, any]));
}

eachDatabase('both documents pass redocly lint (recommended) with no error and no warning', async (t) => {
  const { pub, admin } = await documents(t);
  for (const [name, doc] of [['public', pub], ['admin', admin]] as const) {
    const { errors, warnings, output } = await lint(doc);
    assert.equal(errors, 0, `${name}: ${output}`);
    assert.equal(warnings, 0, `${name}: ${output}`);
  }
  // The linter does find faults: a document without operationIds and license is not clean.
  const broken = structuredClone(pub);
  delete broken.info.license;
  delete broken.paths['/reviews'].get.operationId;
  assert.ok((await lint(broken)).warnings >= 2);
});

eachDatabase('the admin document describes the operator plane and is guarded by the admin token', async (t) => {
  const { admin } = await documents(t);
  assert.deepEqual(admin.servers, [{ url: '/admin/v1' }]);
  assert.deepEqual(admin.security, [{ adminToken: [] }]);
  const ops = operations(admin).map(([k]) => k);
  for (const op of ['POST /accounts', 'GET /deliveries/{id}', 'POST /deliveries/{id}/retry']) assert.ok(ops.includes(op), op);
  assert.ok(!ops.some((op) => op.includes('openapi.json')));
  const anonymous = await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' });
  assert.equal(anonymous.statusCode, 401);
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const withKey = await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${key}` } });
  assert.equal(withKey.statusCode, 401, 'an API key is not the admin token');
});

eachDatabase('every operation has a unique operationId and answers its error statuses through the one Error component, with the real headers', async (t) => {
  const { pub, admin } = await documents(t);
  for (const doc of [pub, admin]) {
    const ids = operations(doc).map(([, op]) => op.operationId);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)), ids.join(','));
    assert.equal(new Set(ids).size, ids.length, 'unique');
    for (const [where, op] of operations(doc)) {
      const statuses = Object.keys(op.responses);
      for (const s of ['400', '401', '405', '429', '503']) assert.ok(statuses.includes(s), `${where}: ${s}`);
      if (where.includes('{')) assert.ok(statuses.includes('404'), `${where}: 404`);
      if (/^(POST|PATCH|DELETE) /.test(where)) for (const s of ['413', '415']) assert.ok(statuses.includes(s), `${where}: ${s}`);
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        assert.deepEqual(response.headers['X-Request-Id'], { $ref: '#/components/headers/X-Request-Id' }, `${where} ${status}`);
        if (Number(status) >= 400) assert.deepEqual(response.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
      }
      for (const s of ['429', '503']) assert.ok(op.responses[s].headers['Retry-After'], `${where} ${s}: Retry-After`);
    }
  }
  // Public-only statuses and the routes' own: 403 everywhere, 409 where a route says so.
  for (const [where, op] of operations(pub)) assert.ok(op.responses['403'], `${where}: 403`);
  assert.ok(pub.paths['/webhooks/{id}/secret/rotate'].post.responses['409']);
  // RateLimit-* where a per-key window applies, as the server sends them.
  const reviews = pub.paths['/reviews'].get.responses;
  for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
    assert.ok(reviews['200'].headers[name] && reviews['429'].headers[name], name);
    assert.ok(pub.components.headers[name]);
  }
  assert.equal(pub.paths['/nodes'].get.responses['200'].headers['RateLimit-Limit'], undefined, 'no window on /nodes');
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const answer = await t.api(key, 'GET', '/reviews');
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-request-id']) assert.ok(answer.headers[name], name);
  const missing = await t.api(key, 'PUT', '/reviews');
  assert.equal(missing.statusCode, 405);
  assert.ok(missing.headers.allow);
  const unknown = await t.api(key, 'GET', '/nodes?limt=1');
  assert.equal(unknown.statusCode, 400);
});

eachDatabase('the webhooks section has a signed POST for every event type and ping, with its payload schema', async (t) => {
  const { pub } = await documents(t);
  assert.deepEqual(Object.keys(pub.webhooks).sort(), [...EVENT_TYPES, 'ping'].sort());
  for (const [type, item] of Object.entries(pub.webhooks) as [string, any][]) {
    const ref = item.post.requestBody.content['application/json'].schema.$ref as string;
    const schema = pub.components.schemas[ref.split('/').at(-1)!];
    assert.equal(schema.properties.type.const, type);
    assert.deepEqual(schema.required, ['id', 'type', 'timestamp', 'account_id', 'data']);
    assert.ok(schema.properties.data.properties);
    const headers = item.post.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
    for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) assert.ok(headers.includes(h), `${type}: ${h}`);
  }
  assert.deepEqual(pub.components.schemas.ReviewReceivedEvent.properties.data.properties.review, { $ref: '#/components/schemas/Review' });
});
