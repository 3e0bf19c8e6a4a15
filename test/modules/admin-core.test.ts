// Operator routes of accounts, keys and reviews: the admin token, account plans, key creation,
// review upsert/reply/hide and the events they write to the outbox.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, dialects } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

eachDatabase('the admin API needs the bearer admin token', async (t) => {
  const noToken = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', payload: { name: 'x' } });
  assert.equal(noToken.statusCode, 401);
  assert.equal(noToken.json().error, 'Authorization header must be "Bearer <REPUTE_ADMIN_TOKEN>"');
  const wrong = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', payload: { name: 'x' }, headers: { authorization: 'Bearer nope' } });
  assert.equal(wrong.statusCode, 401);
  // A well-formed header with another token is told so, not taken for a format mistake.
  assert.equal(wrong.json().error, 'the bearer token is not this server\'s REPUTE_ADMIN_TOKEN');
});

for (const dialect of dialects) {
  test(`without REPUTE_ADMIN_TOKEN the admin API answers 404 [${dialect}]`, async () => {
    const t = await createTestApp(dialect, { env: { REPUTE_ADMIN_TOKEN: '' } });
    try {
      const r = await t.admin('POST', '/accounts', { name: 'x' });
      assert.equal(r.statusCode, 404);
      assert.ok(r.json().error);
    } finally {
      await t.close();
    }
  });
}

eachDatabase('accounts: create with defaults, patch plan and endpoint limit, validation', async (t) => {
  const created = await t.admin('POST', '/accounts', { name: 'Alpine Hotels' });
  assert.equal(created.statusCode, 201);
  const account = created.json();
  assert.deepEqual(Object.keys(account).sort(), ['created_at', 'id', 'name', 'plan_features', 'webhook_endpoint_limit']);
  assert.deepEqual(account.plan_features, ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks']);
  assert.equal(account.webhook_endpoint_limit, 20);

  const patched = await t.admin('PATCH', `/accounts/${account.id}`, { plan_features: ['reviews'], webhook_endpoint_limit: 3 });
  assert.equal(patched.statusCode, 200);
  assert.deepEqual(patched.json().plan_features, ['reviews']);
  assert.equal(patched.json().webhook_endpoint_limit, 3);
  // A null name is an omitted one: the name stays.
  const nullName = await t.admin('PATCH', `/accounts/${account.id}`, { name: null, webhook_endpoint_limit: 4 });
  assert.equal(nullName.statusCode, 200, nullName.body);
  assert.equal(nullName.json().name, account.name);
  assert.equal(nullName.json().webhook_endpoint_limit, 4);
  // So are a null plan and a null limit: they stay as they are (a null plan widened it to every feature).
  const nulls = await t.admin('PATCH', `/accounts/${account.id}`, { name: 'Renamed', plan_features: null, webhook_endpoint_limit: null });
  assert.equal(nulls.statusCode, 200, nulls.body);
  assert.deepEqual([nulls.json().name, nulls.json().plan_features, nulls.json().webhook_endpoint_limit], ['Renamed', ['reviews'], 4]);

  const bad = await t.admin('POST', '/accounts', { name: 'x', plan_features: ['teleport'] });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error, /plan_features/);
  assert.equal((await t.admin('POST', '/accounts', { name: '' })).statusCode, 400);
  assert.equal((await t.admin('PATCH', '/accounts/not-a-uuid', { name: 'x' })).statusCode, 404);
});

eachDatabase('a plan change takes effect for existing keys', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  assert.equal((await t.api(key, 'GET', '/reviews')).statusCode, 200);
  await t.admin('PATCH', `/accounts/${tree.accountId}`, { plan_features: ['nodes'] });
  assert.equal((await t.api(key, 'GET', '/reviews')).statusCode, 403);
});

eachDatabase('api keys: shown once, stored hashed, unknown scopes and foreign nodes refused', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const r = await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.root, scopes: ['reviews:read'], name: 'BI' });
  assert.equal(r.statusCode, 201);
  assert.equal(r.headers['cache-control'], 'no-store', 'no cache keeps the key');
  const created = r.json();
  assert.deepEqual(Object.keys(created).sort(), ['created_at', 'id', 'key', 'node_id', 'scopes']);
  const stored = await t.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
  assert.notEqual(stored.key_hash, created.key);
  assert.ok(!JSON.stringify(stored).includes(created.key), 'the key itself is not stored');

  const badScope = await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.root, scopes: ['reviews:write'] });
  assert.equal(badScope.statusCode, 400);
  assert.match(badScope.json().error, /scopes/);
  const foreign = await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: other.root, scopes: ['reviews:read'] });
  assert.equal(foreign.statusCode, 400);
  assert.match(foreign.json().error, /node_id/);
  assert.equal((await t.admin('DELETE', '/api-keys/00000000-0000-4000-8000-000000000000')).statusCode, 404);
});

async function eventsOf(t: Parameters<Parameters<typeof eachDatabase>[1]>[0], type: string) {
  const rows = await t.ctx.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('created_at').execute();
  return rows.map((r) => JSON.parse(r.payload));
}

eachDatabase('review upsert: 201 and review.received when new, 200 in place and no event when known', async (t) => {
  const tree = await createTree(t);
  const body = { node_id: tree.properties[0], platform: 'booking', external_id: 'B-1', reviewed_at: '2026-05-01T08:00:00Z', rating: 3 };
  const first = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, body);
  assert.equal(first.statusCode, 201, first.body);
  assert.equal(first.json().rating_normalized, 60);
  assert.equal(first.json().reviewed_at, '2026-05-01T08:00:00.000Z');
  const again = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, { ...body, rating: 5, title: 'Changed my mind' });
  assert.equal(again.statusCode, 200);
  assert.equal(again.json().id, first.json().id);
  assert.equal(again.json().title, 'Changed my mind');
  const received = await eventsOf(t, 'review.received');
  assert.equal(received.length, 1);
  assert.equal(received[0].data.review.id, first.json().id);
  assert.equal(received[0].account_id, tree.accountId);

  for (const [field, value] of [['rating', 6], ['rating_normalized', 101], ['sentiment', 'angry'], ['reviewed_at', 'yesterday'], ['node_id', 'x']] as const) {
    const bad = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, { ...body, external_id: 'B-2', [field]: value });
    assert.equal(bad.statusCode, 400, field);
    assert.match(bad.json().error, new RegExp(field));
  }
});

eachDatabase('reply sets owner_reply and replied_at and emits review.replied; hide flips is_hidden', async (t) => {
  const tree = await createTree(t);
  const review = await createReview(t, tree.accountId, tree.properties[0]);
  const replied = await t.admin('PUT', `/reviews/${review.id}/reply`, { text: 'Thank you!' });
  assert.equal(replied.statusCode, 200);
  assert.equal(replied.json().owner_reply, 'Thank you!');
  assert.ok(replied.json().replied_at);
  assert.equal((await eventsOf(t, 'review.replied')).length, 1);

  const hidden = await t.admin('PATCH', `/reviews/${review.id}`, { is_hidden: true });
  assert.equal(hidden.json().is_hidden, true);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().is_hidden, true);
  assert.equal((await t.admin('PUT', '/reviews/00000000-0000-4000-8000-000000000000/reply', { text: 'x' })).statusCode, 404);
  assert.equal((await t.admin('PUT', `/reviews/${review.id}/reply`, { text: '' })).statusCode, 400);
});

eachDatabase('alert rules fire review.alert_triggered for new matching reviews under their node', async (t) => {
  const tree = await createTree(t);
  const rule = await t.admin('POST', `/accounts/${tree.accountId}/alert-rules`, {
    node_id: tree.regions[0], max_rating: 2, keywords: ['Cockroach'],
  });
  assert.equal(rule.statusCode, 201, rule.body);
  const low = await createReview(t, tree.accountId, tree.properties[0], { rating: 2 });
  const keyword = await createReview(t, tree.accountId, tree.properties[1], { rating: 5, text: 'Saw a COCKROACH in the bath' });
  await createReview(t, tree.accountId, tree.properties[0], { rating: 4, text: 'lovely' });
  await createReview(t, tree.accountId, tree.properties[2], { rating: 1 }); // other region
  const fired = await eventsOf(t, 'review.alert_triggered');
  assert.deepEqual(new Set(fired.map((e) => e.data.review.id)), new Set([low.id, keyword.id]));
  assert.ok(fired.every((e) => e.data.alert_rule_id === rule.json().id));

  const empty = await t.admin('POST', `/accounts/${tree.accountId}/alert-rules`, { node_id: tree.root });
  assert.equal(empty.statusCode, 400);
});

eachDatabase('concurrent first writes of one review identity create it once and answer 201 then 200', async (t) => {
  const tree = await createTree(t);
  const body = { node_id: tree.properties[0], platform: 'google', external_id: 'race-1', reviewed_at: '2026-05-01T08:00:00Z', rating: 4 };
  const answers = await Promise.all(Array.from({ length: 20 }, () => t.admin('POST', `/accounts/${tree.accountId}/reviews`, body)));
  const statuses = answers.map((a) => a.statusCode).sort();
  assert.deepEqual(statuses, [...Array(19).fill(200), 201], answers.map((a) => `${a.statusCode} ${a.body}`).join('\n'));
  assert.equal(new Set(answers.map((a) => a.json().id)).size, 1);
  assert.equal((await eventsOf(t, 'review.received')).length, 1);
});
