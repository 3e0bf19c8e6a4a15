// GET /nodes and the operator's hierarchy rules.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createAccount, createKey, createNode, createTree } from '../support/factories.ts';

eachDatabase('GET /nodes lists the key\'s node and everything below it, nothing else', async (t) => {
  const tree = await createTree(t);
  await createTree(t, { name: 'Other' });
  const regionKey = await createKey(t, tree.accountId, tree.regions[0], ['nodes:read']);
  const r = await t.api(regionKey, 'GET', '/nodes');
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.deepEqual(Object.keys(body), ['data']);
  assert.deepEqual(new Set(body.data.map((n: any) => n.id)), new Set([tree.regions[0], tree.properties[0], tree.properties[1]]));
  const region = body.data.find((n: any) => n.id === tree.regions[0]);
  assert.deepEqual(region, { id: tree.regions[0], name: 'North', parent_id: tree.root, type: 'region' });

  const rootKey = await createKey(t, tree.accountId, tree.root, ['nodes:read']);
  const all = (await t.api(rootKey, 'GET', '/nodes')).json().data;
  assert.equal(all.length, 6);
  assert.equal(all.find((n: any) => n.id === tree.root).parent_id, null);

  const propertyKey = await createKey(t, tree.accountId, tree.properties[2], ['nodes:read']);
  assert.deepEqual((await t.api(propertyKey, 'GET', '/nodes')).json().data.map((n: any) => n.id), [tree.properties[2]]);
});

eachDatabase('GET /nodes needs nodes:read and the nodes plan feature', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  assert.equal((await t.api(key, 'GET', '/nodes')).statusCode, 403);
  const limited = await createTree(t, { plan_features: ['reviews'] });
  const planKey = await createKey(t, limited.accountId, limited.root, ['nodes:read']);
  assert.equal((await t.api(planKey, 'GET', '/nodes')).statusCode, 403);
  assert.equal((await t.api(null, 'GET', '/nodes')).statusCode, 401);
});

eachDatabase('a node created under a group is visible to that group\'s key at once', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.regions[1], ['nodes:read']);
  assert.equal((await t.api(key, 'GET', '/nodes')).json().data.length, 2);
  const added = await createNode(t, tree.accountId, 'New Inn', 'property', tree.regions[1]);
  const ids = (await t.api(key, 'GET', '/nodes')).json().data.map((n: any) => n.id);
  assert.ok(ids.includes(added));
});

eachDatabase('hierarchy rules: one root, properties are leaves, parents of the same account', async (t) => {
  const tree = await createTree(t);
  const other = await createAccount(t, { name: 'Other' });
  const secondRoot = await t.admin('POST', `/accounts/${tree.accountId}/nodes`, { name: 'Again', type: 'account', parent_id: null });
  assert.equal(secondRoot.statusCode, 400);
  assert.match(secondRoot.json().error, /root/);
  const underProperty = await t.admin('POST', `/accounts/${tree.accountId}/nodes`, { name: 'Wing', type: 'region', parent_id: tree.properties[0] });
  assert.equal(underProperty.statusCode, 400);
  assert.match(underProperty.json().error, /property.*leaf/);
  const foreignParent = await t.admin('POST', `/accounts/${other}/nodes`, { name: 'X', type: 'region', parent_id: tree.root });
  assert.equal(foreignParent.statusCode, 400);
  assert.match(foreignParent.json().error, /parent_id/);
  const missing = await t.admin('POST', `/accounts/${tree.accountId}/nodes`, { name: 'X', type: 'region' });
  assert.equal(missing.statusCode, 400);
  assert.match(missing.json().error, /parent_id/);
  const unknownAccount = await t.admin('POST', '/accounts/00000000-0000-4000-8000-000000000000/nodes', { name: 'X', type: 'region', parent_id: null });
  assert.equal(unknownAccount.statusCode, 404);
});
