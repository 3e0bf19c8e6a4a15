// POST /guests under load and against abuse: concurrent pushes over real HTTP, the shared rate
// limit, and that no key can read guest data back.
import assert from 'node:assert/strict';
import { request } from 'undici';
import { connect } from '../../src/db/connect.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { ALL_SCOPES, createKey, createTree } from '../support/factories.ts';

interface Instance {
  url: string;
  close(): Promise<void>;
}

/**
 * The test app on a real socket, plus on PostgreSQL a second instance with a larger pool on the same
 * schema, so dozens of transactions really run at once. (SQLite has one writer per file; a second
 * connection in the same process would only wait on the first.)
 */
async function instances(t: TestApp): Promise<Instance[]> {
  const first: Instance = { url: await t.app.listen({ port: 0, host: '127.0.0.1' }), close: async () => {} };
  if (t.dialect === 'sqlite') return [first];
  const database = connect(t.testDb.url, { schema: t.testDb.schema!, poolSize: 20 });
  const second = await createTestApp('postgres', { database: { ...t.testDb, database }, env: { RATE_LIMIT_MAX: '100000' } });
  const url = await second.app.listen({ port: 0, host: '127.0.0.1' });
  return [first, { url, close: async () => { await second.close(); await database.destroy(); } }];
}

type Answer = { status: number; body: any };

/** Sends every body at once, or spread over time (`spacingMs` between starts). */
async function pushAll(urls: string[], key: string, bodies: unknown[], spacingMs = 0): Promise<Answer[]> {
  return Promise.all(pushEach(urls, key, bodies, spacingMs));
}

function pushEach(urls: string[], key: string, bodies: unknown[], spacingMs: number): Promise<Answer>[] {
  return bodies.map(async (body, i) => {
    if (spacingMs > 0) await new Promise((resolve) => setTimeout(resolve, i * spacingMs));
    const r = await request(`${urls[i % urls.length]}/api/v4/guests`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: r.statusCode, body: await r.body.json() };
  });
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

eachDatabase('50 concurrent pushes of a new guest create one guest (one 201, 49 × 200), of a new stay one stay', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const servers = await instances(t);
  try {
    const urls = servers.map((s) => s.url);
    const same = await pushAll(urls, key, Array.from({ length: 50 }, (_, i) => ({ email: ' Rush@Example.com', first_name: `Try ${i}` })));
    const statuses = same.map((r) => r.status);
    assert.equal(count(statuses, 201), 1, JSON.stringify(same.filter((r) => r.status !== 200 && r.status !== 201)));
    assert.equal(count(statuses, 200), 49);
    assert.equal(new Set(same.map((r) => r.body.id)).size, 1);
    const guests = await t.ctx.db.selectFrom('guests').select('id').where('email', '=', 'rush@example.com').execute();
    assert.equal(guests.length, 1);

    // The same new stay from 50 requests of one guest, then from 50 different new guests.
    const stay = await pushAll(urls, key, Array.from({ length: 50 }, (_, i) => ({ email: 'rush@example.com', reservation: { external_id: 'RUSH-1', raw_status: `s${i}` } })));
    assert.deepEqual([...new Set(stay.map((r) => r.status))], [200], JSON.stringify(stay.find((r) => r.status !== 200)));
    assert.equal(new Set(stay.map((r) => r.body.reservation.id)).size, 1);
    const many = await pushAll(urls, key, Array.from({ length: 50 }, (_, i) => ({ email: `rush${i}@example.com`, reservation: { external_id: 'RUSH-2' } })));
    assert.deepEqual([...new Set(many.map((r) => r.status))], [201], JSON.stringify(many.find((r) => r.status !== 201)));
    assert.equal(new Set(many.map((r) => r.body.reservation.id)).size, 1);
    for (const ref of ['RUSH-1', 'RUSH-2']) {
      const rows = await t.ctx.db.selectFrom('reservations').select('id').where('external_id', '=', ref).execute();
      assert.equal(rows.length, 1, ref);
    }

    // 50 concurrent withdrawals of a granted guest emit guest.unsubscribed once.
    await pushAll(urls, key, [{ email: 'optout@example.com', marketing_consent: true }]);
    const outs = await pushAll(urls, key, Array.from({ length: 50 }, () => ({ email: 'optout@example.com', marketing_consent: false })));
    assert.deepEqual([...new Set(outs.map((r) => r.status))], [200]);
    const events = await t.ctx.db.selectFrom('events').select('id').where('type', '=', 'guest.unsubscribed').execute();
    assert.equal(events.length, 1);
    const created = await t.ctx.db.selectFrom('events').select('id').where('type', '=', 'guest.created').execute();
    assert.equal(created.length, 1 + 50 + 1, 'one guest.created per guest created');
  } finally {
    for (const s of servers) await s.close();
  }
}, { env: { RATE_LIMIT_MAX: '100000' } });

eachDatabase('an erasure racing 60 concurrent pushes of the same guest leaves no guest behind', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const servers = await instances(t);
  try {
    const urls = servers.map((s) => s.url);
    const body = { email: 'race@example.com', first_name: 'Racer', reservation: { external_id: 'RACE-1' } };
    // Pushes keep starting before, during and (load permitting) after the erasure; whatever the
    // interleaving, no push may leave the guest behind once the erasure has answered.
    const pushes = pushEach(urls, key, Array.from({ length: 60 }, () => body), 10);
    await Promise.race(pushes);
    const erase = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: tree.properties[0], email: 'race@example.com' });
    assert.equal(erase.statusCode, 200, erase.body);
    const statuses = (await Promise.all(pushes)).map((r) => r.status);
    assert.ok(statuses.every((s) => s === 200 || s === 201 || s === 409), statuses.join(','));
    const left = await t.ctx.db.selectFrom('guests').select('id').where('email', '=', 'race@example.com').execute();
    assert.deepEqual(left, [], `statuses ${statuses.join(',')}`);
    assert.equal((await t.ctx.db.selectFrom('reservations').select('id').where('external_id', '=', 'RACE-1').execute()).length, 0);
    assert.equal((await pushAll(urls, key, [body]))[0]!.status, 409);
  } finally {
    for (const s of servers) await s.close();
  }
}, { env: { RATE_LIMIT_MAX: '100000' } });

eachDatabase('concurrent pushes refused (409, 400) change nothing while the ones beside them are stored', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: tree.properties[0], email: 'gone@example.com' });
  await t.api(key, 'POST', '/guests', { email: 'dated@example.com', reservation: { external_id: 'D-1', check_in: '2026-12-10' } });
  const servers = await instances(t);
  try {
    const bodies = Array.from({ length: 30 }, (_, i) => [
      { email: 'gone@example.com', first_name: 'Gone', reservation: { external_id: `G-${i}` } },
      { email: `ok${i}@example.com`, reservation: { external_id: `OK-${i}` } },
      { email: 'dated@example.com', first_name: `Bad ${i}`, reservation: { external_id: 'D-1', check_out: '2026-12-01' } },
    ][i % 3]);
    const answers = await pushAll(servers.map((s) => s.url), key, bodies);
    assert.deepEqual(answers.map((a) => a.status), bodies.map((_, i) => [409, 201, 400][i % 3]));
    const ok = await t.ctx.db.selectFrom('guests').select('email').where('email', 'like', 'ok%').execute();
    assert.equal(ok.length, 10);
    assert.equal((await t.ctx.db.selectFrom('reservations').select('id').where('external_id', 'like', 'OK-%').execute()).length, 10);
    assert.equal((await t.ctx.db.selectFrom('reservations').select('id').where('external_id', 'like', 'G-%').execute()).length, 0);
    const dated = await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=dated@example.com`);
    assert.equal(dated.json().first_name, null, 'a refused push leaves the guest as it was');
    assert.equal(dated.json().stays[0].check_out, null);
    const created = await t.ctx.db.selectFrom('events').select('id').where('type', '=', 'guest.created').execute();
    assert.equal(created.length, 1 + 10);
  } finally {
    for (const s of servers) await s.close();
  }
}, { env: { RATE_LIMIT_MAX: '100000' } });

async function rateLimited(t: TestApp): Promise<void> {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['reviews:read', 'guests:write']);
  assert.equal((await t.api(key, 'GET', '/reviews')).statusCode, 200);
  const ok = await t.api(key, 'POST', '/guests', { email: 'rl1@example.com' });
  assert.equal(ok.statusCode, 201);
  assert.equal(ok.headers['ratelimit-limit'], '3');
  assert.equal(ok.headers['ratelimit-remaining'], '1');
  assert.equal((await t.api(key, 'POST', '/guests', { email: 'rl2@example.com' })).statusCode, 201);
  for (const [method, path, body] of [['POST', '/guests', { email: 'rl3@example.com' }], ['GET', '/reviews', undefined]] as const) {
    const r = await t.api(key, method, path, body);
    assert.equal(r.statusCode, 429, `${method} ${path}: ${r.body}`);
    assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
    assert.equal(typeof r.json().error, 'string');
  }
  // The limited push stored nothing; another key has its own window.
  const other = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const stored = await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=rl3@example.com`);
  assert.equal(stored.statusCode, 404);
  assert.equal((await t.api(other, 'POST', '/guests', { email: 'rl3@example.com' })).statusCode, 201);
}

eachDatabase('POST /guests shares the fixed window of GET /reviews per key: 429 with Retry-After', rateLimited,
  { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '3600' } });

eachDatabase('the guest rate limit works the same through Redis', rateLimited,
  { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '3600', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } });

eachDatabase('no read-back: guests:write reads nothing, no route returns guest data to a key', async (t) => {
  const tree = await createTree(t);
  const writer = await createKey(t, tree.accountId, tree.root, ['guests:write']);
  const reader = await createKey(t, tree.accountId, tree.root, ALL_SCOPES.filter((s) => s !== 'guests:write'));
  const pushed = await t.api(writer, 'POST', '/guests', { email: 'secret.guest@example.com', property_id: tree.properties[0], first_name: 'Hidden', reservation: { external_id: 'HID-1' } });
  assert.equal(pushed.statusCode, 201);
  const id = pushed.json().id;

  for (const path of ['/guests', `/guests/${id}`, `/guests?email=secret.guest@example.com`, `/guests/${id}/reservations`]) {
    for (const key of [writer, reader]) {
      const r = await t.api(key, 'GET', path);
      assert.ok(r.statusCode === 404 || r.statusCode === 405, `GET ${path}: ${r.statusCode}`);
      assert.equal(typeof r.json().error, 'string');
    }
  }
  for (const path of ['/reviews', '/nodes', '/analytics/scores', '/surveys', '/insights/recommendations', '/insights/mentions', '/insights/topics', '/webhooks']) {
    const r = await t.api(writer, 'GET', path);
    assert.equal(r.statusCode, 403, `GET ${path} with guests:write: ${r.body}`);
  }
  const whoami = await t.api(writer, 'GET', '/whoami');
  assert.equal(whoami.statusCode, 200);
  for (const path of ['/reviews', '/nodes', '/analytics/scores', '/surveys', '/insights/mentions', '/webhooks', '/whoami']) {
    const r = await t.api(reader, 'GET', path);
    assert.equal(/secret\.guest|Hidden|HID-1/.test(r.body), false, `${path} leaks guest data`);
  }
  assert.equal((await t.api(reader, 'POST', '/guests', { email: 'x@example.com', property_id: tree.properties[0] })).statusCode, 403);
  assert.equal((await t.api(null, 'POST', '/guests', { email: 'x@example.com' })).statusCode, 401);
  const operator = await t.app.inject({ method: 'GET', url: `/admin/v1/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=secret.guest@example.com`, headers: { authorization: `Bearer ${writer}` } });
  assert.equal(operator.statusCode, 401, 'an API key never reaches the operator view');

  const planless = await createTree(t, { plan_features: ['reviews'] });
  const planKey = await createKey(t, planless.accountId, planless.properties[0], ['guests:write']);
  const denied = await t.api(planKey, 'POST', '/guests', { email: 'x@example.com' });
  assert.equal(denied.statusCode, 403);
  assert.match(denied.json().error, /plan/);

  const doc = (await t.app.inject({ method: 'GET', url: '/api/v4/openapi.json' })).json();
  const guestPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/guests'));
  assert.deepEqual(guestPaths, ['/guests']);
  assert.deepEqual(Object.keys(doc.paths['/guests']), ['post']);
});
