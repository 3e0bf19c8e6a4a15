// /webhooks*: create (secret once), list, update, pause, delete, deliveries, test ping; validation,
// the per-account limit, account-wide reach whatever node the key is bound to, and isolation.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { createEndpoint, deliveries, EVENTS, WEBHOOK_ENV } from './helpers.ts';

// The contract's fields plus issue 13's additive ones (disabled_reason, previous_secret_expires_at, last_error).
const ENDPOINT_FIELDS = ['created_at', 'disabled_reason', 'events', 'id', 'is_active', 'name', 'previous_secret_expires_at', 'updated_at', 'url'];
const DELIVERY_FIELDS = ['attempt_count', 'created_at', 'event_type', 'id', 'last_attempt_at', 'last_error', 'last_status_code', 'status'];
const options = { env: WEBHOOK_ENV };

eachDatabase('POST /webhooks answers 201 with the whsec_ secret once; the list and every other answer never carry it', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['webhooks:manage']);
  const r = await t.api(key, 'POST', '/webhooks', { name: 'Ops', url: 'https://hooks.example.com/repute', events: ['review.received', 'guest.created'] });
  assert.equal(r.statusCode, 201, r.body);
  const created = r.json();
  assert.deepEqual(Object.keys(created).sort(), ['endpoint', 'secret']);
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(r.headers['cache-control'], 'no-store', 'no cache keeps the secret');
  assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
  assert.deepEqual(Object.keys(created.endpoint).sort(), ENDPOINT_FIELDS);
  assert.equal(created.endpoint.is_active, true);
  assert.deepEqual(created.endpoint.events, ['review.received', 'guest.created']);

  const id = created.endpoint.id;
  const secretPart = created.secret.slice('whsec_'.length);
  const answers = [
    await t.api(key, 'GET', '/webhooks'),
    await t.api(key, 'PATCH', `/webhooks/${id}`, { name: 'Ops 2' }),
    await t.api(key, 'POST', `/webhooks/${id}/test`),
    await t.api(key, 'GET', `/webhooks/${id}/deliveries`),
  ];
  for (const answer of answers) {
    assert.equal(answer.statusCode, 200, answer.body);
    assert.ok(!answer.body.includes(secretPart), 'an answer carries the secret');
  }
  const list = answers[0]!.json().data;
  assert.deepEqual(list.map((e: any) => e.id), [id]);
  assert.deepEqual(Object.keys(list[0]).sort(), ENDPOINT_FIELDS);

  // At rest the secret is sealed: neither it nor its key bytes are in the row.
  const row = await t.ctx.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', id).executeTakeFirstOrThrow();
  assert.ok(!row.secret_enc.includes(secretPart));
  assert.ok(!row.secret_enc.includes(created.secret));
  assert.match(row.secret_enc, /^v1\./);
  const payloads = await t.ctx.db.selectFrom('events').select('payload').execute();
  for (const p of payloads) assert.ok(!p.payload.includes(secretPart), 'an event carries the secret');
}, options);

eachDatabase('webhook endpoints are account-wide: a key bound to any node manages all of them', async (t) => {
  const tree = await createTree(t);
  const propertyKey = await createKey(t, tree.accountId, tree.properties[2], ['webhooks:manage']);
  const regionKey = await createKey(t, tree.accountId, tree.regions[0], ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, propertyKey, 'https://a.example.com/');
  assert.deepEqual((await t.api(regionKey, 'GET', '/webhooks')).json().data.map((e: any) => e.id), [endpoint.id]);
  assert.equal((await t.api(regionKey, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: false })).statusCode, 200);
  assert.equal((await t.api(regionKey, 'GET', `/webhooks/${endpoint.id}/deliveries`)).statusCode, 200);
}, options);

eachDatabase('POST /webhooks validates the body with 400 naming the field', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const good = { name: 'Ops', url: 'https://hooks.example.com/x', events: ['review.received'] };
  const cases: Array<[unknown, RegExp]> = [
    [{ ...good, name: '' }, /name/],
    [{ ...good, name: 'x'.repeat(121) }, /name/],
    [{ url: good.url, events: good.events }, /name/],
    [{ ...good, url: 'ftp://hooks.example.com/x' }, /url/],
    [{ ...good, url: '/relative/path' }, /url/],
    [{ ...good, url: 'not a url' }, /url/],
    [{ ...good, url: 'mailto:ops@example.com' }, /url/],
    [{ name: 'Ops', events: good.events }, /url/],
    [{ ...good, events: [] }, /events/],
    [{ ...good, events: ['review.deleted'] }, /events/],
    [{ ...good, events: ['ping'] }, /events/],
    [{ ...good, events: 'review.received' }, /events/],
    [{ name: 'Ops', url: good.url }, /events/],
    [{ ...good, secret: 'whsec_mine' }, /secret/],
    [{ ...good, name: 7 }, /name/],
  ];
  for (const [body, field] of cases) {
    const r = await t.api(key, 'POST', '/webhooks', body);
    assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
    assert.match(r.json().error, field, JSON.stringify(body));
  }
  const max = await t.api(key, 'POST', '/webhooks', { ...good, name: 'x'.repeat(120), url: 'http://hooks.example.com:8080/a?b=c', events: EVENTS });
  assert.equal(max.statusCode, 201, max.body);
  assert.equal((await t.api(key, 'GET', '/webhooks')).json().data.length, 1);
}, options);

eachDatabase('the per-account endpoint limit answers 409; the account setting overrides the default', async (t) => {
  const tree = await createTree(t, { webhook_endpoint_limit: 2 });
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  await createEndpoint(t, key, 'https://a.example.com/');
  const second = await createEndpoint(t, key, 'https://b.example.com/');
  const r = await t.api(key, 'POST', '/webhooks', { name: 'Three', url: 'https://c.example.com/', events: ['review.received'] });
  assert.equal(r.statusCode, 409, r.body);
  assert.match(r.json().error, /limit/);
  // Deleting one frees a place.
  assert.equal((await t.api(key, 'DELETE', `/webhooks/${second.endpoint.id}`)).statusCode, 200);
  await createEndpoint(t, key, 'https://c.example.com/');

  // Another account falls back to WEBHOOK_ENDPOINT_LIMIT (3 here).
  const other = await createTree(t, { name: 'Other' });
  const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
  for (let i = 0; i < 3; i++) await createEndpoint(t, otherKey, `https://o${i}.example.com/`);
  assert.equal((await t.api(otherKey, 'POST', '/webhooks', { name: 'x', url: 'https://x.example.com/', events: ['ping'.replace('ping', 'guest.created')] })).statusCode, 409);
}, { env: { ...WEBHOOK_ENV, WEBHOOK_ENDPOINT_LIMIT: '3' } });

eachDatabase('PATCH answers the updated endpoint; is_active pauses and resumes; validation names the field', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'https://a.example.com/');
  const r = await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { name: 'Renamed', url: 'http://b.example.com/x', events: ['guest.unsubscribed'], is_active: false });
  assert.equal(r.statusCode, 200, r.body);
  const updated = r.json();
  assert.deepEqual(Object.keys(updated).sort(), ENDPOINT_FIELDS);
  assert.equal(updated.name, 'Renamed');
  assert.equal(updated.url, 'http://b.example.com/x');
  assert.deepEqual(updated.events, ['guest.unsubscribed']);
  assert.equal(updated.is_active, false);
  assert.equal(updated.created_at, endpoint.created_at);
  assert.deepEqual((await t.api(key, 'GET', '/webhooks')).json().data[0], updated);
  assert.equal((await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: true })).json().is_active, true);

  for (const [body, field] of [[{ name: '' }, /name/], [{ url: 'gopher://x' }, /url/], [{ events: [] }, /events/],
    [{ events: ['nope'] }, /events/], [{ is_active: 'yes' }, /is_active/], [{ secret: 'x' }, /secret/], [{}, /body/]] as const) {
    const bad = await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, body);
    assert.equal(bad.statusCode, 400, `${JSON.stringify(body)}: ${bad.body}`);
    assert.match(bad.json().error, field);
  }
}, options);

eachDatabase('DELETE answers { id, deleted: true } and removes the endpoint and its deliveries', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'https://a.example.com/');
  await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
  const r = await t.api(key, 'DELETE', `/webhooks/${endpoint.id}`);
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(r.json(), { id: endpoint.id, deleted: true });
  assert.deepEqual((await t.api(key, 'GET', '/webhooks')).json().data, []);
  assert.equal((await t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).execute()).length, 0);
  for (const [method, path] of [['DELETE', ''], ['PATCH', ''], ['GET', '/deliveries'], ['POST', '/test']] as const) {
    const again = await t.api(key, method, `/webhooks/${endpoint.id}${path}`, method === 'PATCH' ? { name: 'x' } : undefined);
    assert.equal(again.statusCode, 404, `${method} ${path}`);
  }
}, options);

eachDatabase('POST /webhooks/{id}/test queues a ping delivery to that endpoint only, whatever it subscribes to', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const target = await createEndpoint(t, key, 'https://a.example.com/', ['guest.created']);
  const bystander = await createEndpoint(t, key, 'https://b.example.com/', EVENTS);
  const r = await t.api(key, 'POST', `/webhooks/${target.endpoint.id}/test`);
  assert.equal(r.statusCode, 200, r.body);
  const delivery = r.json();
  assert.deepEqual(Object.keys(delivery).sort(), DELIVERY_FIELDS);
  assert.equal(delivery.event_type, 'ping');
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempt_count, 0);
  assert.equal(delivery.last_status_code, null);
  assert.equal(delivery.last_attempt_at, null);
  assert.deepEqual((await deliveries(t, key, target.endpoint.id)).map((d) => d.id), [delivery.id]);
  assert.deepEqual(await deliveries(t, key, bystander.endpoint.id), []);
}, options);

eachDatabase('GET /webhooks/{id}/deliveries lists the 100 most recent, newest first', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'https://a.example.com/');
  const ids: string[] = [];
  for (let i = 0; i < 103; i++) ids.push((await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`)).json().id);
  const listed = await deliveries(t, key, endpoint.id);
  assert.equal(listed.length, 100);
  assert.deepEqual(listed.map((d) => d.id), ids.slice(3).reverse());
  assert.deepEqual(Object.keys(listed[0]).sort(), DELIVERY_FIELDS);
}, { env: { ...WEBHOOK_ENV, WEBHOOK_TEST_LIMIT: '1000' } }); // 103 pings in a row: above the default limit of test pings

eachDatabase('webhooks need webhooks:manage and the plan feature; other accounts\' and malformed ids answer 404', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'https://a.example.com/');

  assert.equal((await t.api(null, 'GET', '/webhooks')).statusCode, 401);
  assert.equal((await t.api('rk_nope', 'GET', '/webhooks')).statusCode, 401);
  const readOnly = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  for (const [method, path] of [['GET', '/webhooks'], ['POST', '/webhooks'], ['PATCH', `/webhooks/${endpoint.id}`],
    ['DELETE', `/webhooks/${endpoint.id}`], ['GET', `/webhooks/${endpoint.id}/deliveries`], ['POST', `/webhooks/${endpoint.id}/test`]] as const) {
    const r = await t.api(readOnly, method, path, method === 'POST' || method === 'PATCH' ? { name: 'x' } : undefined);
    assert.equal(r.statusCode, 403, `${method} ${path}: ${r.body}`);
  }
  const planless = await createTree(t, { name: 'No hooks', plan_features: ['reviews'] });
  const planlessKey = await createKey(t, planless.accountId, planless.root, ['webhooks:manage']);
  assert.equal((await t.api(planlessKey, 'GET', '/webhooks')).statusCode, 403);

  assert.deepEqual((await t.api(otherKey, 'GET', '/webhooks')).json().data, []);
  for (const id of [endpoint.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
    for (const [method, path] of [['PATCH', ''], ['DELETE', ''], ['GET', '/deliveries'], ['POST', '/test']] as const) {
      const r = await t.api(otherKey, method, `/webhooks/${id}${path}`, method === 'PATCH' ? { name: 'x' } : undefined);
      assert.equal(r.statusCode, 404, `${method} ${id}${path}: ${r.body}`);
      assert.ok(r.json().error);
    }
  }
  // The other account's attempts changed nothing.
  const [still] = (await t.api(key, 'GET', '/webhooks')).json().data;
  assert.equal(still.name, 'Ops');
}, options);

eachDatabase('a route that takes no body, or an optional one, accepts an empty body sent as JSON; one that takes a body answers 400 invalid_json', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage', 'guests:write']);
  const { endpoint } = await createEndpoint(t, key, 'https://hooks.example.com/x', ['review.received']);
  // As HTTP clients that always send the JSON header do.
  const empty = (method: 'POST' | 'DELETE', url: string) => t.app.inject({ method, url: `/api/v4${url}`, payload: '', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const ping = await empty('POST', `/webhooks/${endpoint.id}/test`);
  assert.equal(ping.statusCode, 200, ping.body);
  assert.equal(ping.json().event_type, 'ping');
  const rotated = await empty('POST', `/webhooks/${endpoint.id}/secret/rotate`);
  assert.equal(rotated.statusCode, 200, rotated.body);
  assert.match(rotated.json().secret, /^whsec_/);
  assert.equal(rotated.headers['cache-control'], 'no-store', 'no cache keeps the secret');
  const guest = await empty('POST', '/guests');
  assert.equal(guest.statusCode, 400, guest.body);
  assert.equal(guest.json().code, 'invalid_json');
  const gone = await empty('DELETE', `/webhooks/${endpoint.id}`);
  assert.equal(gone.statusCode, 200, gone.body);
});

eachDatabase('a test ping racing the endpoint\'s deletion answers 200 or 404, never a fault, and leaves no delivery behind', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['webhooks:manage']);
  const statuses = new Set<number>();
  for (let round = 0; round < 15; round++) {
    const { endpoint } = await createEndpoint(t, key, `https://race${round}.example.com/`);
    const [deleted, ...pings] = await Promise.all([
      t.api(key, 'DELETE', `/webhooks/${endpoint.id}`),
      ...[1, 2, 3].map(() => t.api(key, 'POST', `/webhooks/${endpoint.id}/test`)),
    ]);
    assert.equal(deleted!.statusCode, 200, deleted!.body);
    for (const ping of pings) {
      assert.ok(ping.statusCode === 200 || ping.statusCode === 404, `${ping.statusCode} ${ping.body}`);
      statuses.add(ping.statusCode);
    }
    const left = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute();
    assert.deepEqual(left, [], 'a deleted endpoint keeps no delivery');
  }
  assert.ok(statuses.has(404), 'some ping came after the deletion');
}, options);

eachDatabase('events written while their endpoint is deleted are written (the fan-out runs again without it), never a fault', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['webhooks:manage', 'guests:write']);
  for (let round = 0; round < 15; round++) {
    const { endpoint } = await createEndpoint(t, key, `https://gone${round}.example.com/`);
    const [deleted, ...pushes] = await Promise.all([
      t.api(key, 'DELETE', `/webhooks/${endpoint.id}`),
      ...[1, 2, 3, 4].map((i) => t.api(key, 'POST', '/guests', { email: `race-${round}-${i}@example.com` })),
    ]);
    assert.equal(deleted!.statusCode, 200, deleted!.body);
    for (const push of pushes) assert.equal(push.statusCode, 201, push.body);
    const left = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute();
    assert.deepEqual(left, [], 'a deleted endpoint keeps no delivery');
  }
}, options);
