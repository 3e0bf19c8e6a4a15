// GET /reviews and /reviews/{id}: fields, order, pagination, subtree scoping, auth.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

const REVIEW_FIELDS = [
  'author', 'created_at', 'external_id', 'id', 'is_hidden', 'language', 'node_id', 'owner_reply', 'platform', 'rating',
  'rating_normalized', 'replied_at', 'reviewed_at', 'sentiment', 'text', 'title', 'updated_at', 'url',
];

eachDatabase('GET /reviews lists the subtree newest first with exactly the Review fields', async (t) => {
  const tree = await createTree(t);
  const a = await createReview(t, tree.accountId, tree.properties[0], { reviewed_at: '2026-03-01T10:00:00.000Z', is_hidden: true });
  const b = await createReview(t, tree.accountId, tree.properties[1], { reviewed_at: '2026-03-02T10:00:00.000Z' });
  await createReview(t, tree.accountId, tree.properties[2], { reviewed_at: '2026-03-03T10:00:00.000Z' });
  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);

  const r = await t.api(key, 'GET', '/reviews');
  assert.equal(r.statusCode, 200, r.body);
  const page = r.json();
  assert.deepEqual(page.data.map((x: any) => x.id), [b.id, a.id]);
  assert.deepEqual(Object.keys(page.data[0]).sort(), REVIEW_FIELDS);
  assert.equal(page.data[1].is_hidden, true);
  assert.equal(page.data[0].author, null);
  assert.equal(page.next_cursor, null);
  assert.equal(page.has_more, false);
});

eachDatabase('GET /reviews pages with opaque cursors until has_more is false', async (t) => {
  const tree = await createTree(t);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    // Two reviews share each timestamp so the id breaks ties.
    const at = new Date(Date.UTC(2026, 1, 1 + Math.floor(i / 2))).toISOString();
    ids.push((await createReview(t, tree.accountId, tree.properties[i % 3]!, { reviewed_at: at })).id);
  }
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await t.api(key, 'GET', `/reviews?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.statusCode, 200, r.body);
    const page = r.json();
    assert.equal(page.has_more, typeof page.next_cursor === 'string');
    seen.push(...page.data.map((x: any) => x.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor);
  assert.equal(pages, 3);
  assert.equal(new Set(seen).size, 7);
  assert.deepEqual(new Set(seen), new Set(ids));
});

eachDatabase('GET /reviews rejects bad limits and cursors with 400', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=2.5', 'cursor=nope', 'cursor=', 'foo=1']) {
    const r = await t.api(key, 'GET', `/reviews?${query}`);
    assert.equal(r.statusCode, 400, `${query}: ${r.body}`);
    assert.match(r.json().error, /limit|cursor|foo/);
  }
});

eachDatabase('reviews outside the subtree or account answer 404 and never list', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const inside = await createReview(t, tree.accountId, tree.properties[0]);
  const sibling = await createReview(t, tree.accountId, tree.properties[2]);
  const foreign = await createReview(t, other.accountId, other.properties[0]);
  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);

  assert.equal((await t.api(key, 'GET', `/reviews/${inside.id}`)).statusCode, 200);
  for (const id of [sibling.id, foreign.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
    const r = await t.api(key, 'GET', `/reviews/${id}`);
    assert.equal(r.statusCode, 404, id);
    assert.ok(r.json().error);
  }
  const listed = (await t.api(key, 'GET', '/reviews')).json().data.map((x: any) => x.id);
  assert.deepEqual(listed, [inside.id]);
});

eachDatabase('keys: 401 for missing, malformed, unknown and revoked; 403 for scope and plan', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['nodes:read']);
  assert.equal((await t.api(null, 'GET', '/reviews')).statusCode, 401);
  assert.equal((await t.api('garbage', 'GET', '/reviews')).statusCode, 401);
  assert.equal((await t.api(`rpt_${'A'.repeat(43)}`, 'GET', '/reviews')).statusCode, 401);
  assert.equal((await t.api(key, 'GET', '/reviews')).statusCode, 403);

  const limited = await createTree(t, { plan_features: ['nodes'] });
  const planKey = await createKey(t, limited.accountId, limited.root, ['reviews:read', 'nodes:read']);
  const denied = await t.api(planKey, 'GET', '/reviews');
  assert.equal(denied.statusCode, 403);
  assert.match(denied.json().error, /plan/);

  const keys = await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.root, scopes: ['reviews:read'] });
  const { id, key: fresh } = keys.json();
  assert.equal((await t.api(fresh, 'GET', '/whoami')).statusCode, 200);
  assert.equal((await t.admin('DELETE', `/api-keys/${id}`)).statusCode, 200);
  assert.equal((await t.api(fresh, 'GET', '/whoami')).statusCode, 401);
});

eachDatabase('GET /whoami answers the key\'s account, node and scopes', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.regions[1], ['reviews:read', 'nodes:read']);
  const r = await t.api(key, 'GET', '/whoami');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { account_id: tree.accountId, node_id: tree.regions[1], scopes: ['reviews:read', 'nodes:read'] });
});
