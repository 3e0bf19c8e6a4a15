// UUIDs are case-insensitive (RFC 9562): an id written in capitals names the same resource, in a
// path, a query string or a body, on the public API and the admin API; answers give ids in lower case.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

eachDatabase('an id written in capitals names the same resource in a path, a query string and a body', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const review = await createReview(t, tree.accountId, tree.properties[0]);
  const upper = (id: string) => id.toUpperCase();

  const one = await t.api(key, 'GET', `/reviews/${upper(review.id)}`);
  assert.equal(one.statusCode, 200, one.body);
  assert.equal(one.json().id, review.id);

  const page = await t.api(key, 'GET', `/reviews?node_id=${upper(tree.properties[0])}`);
  assert.equal(page.statusCode, 200, page.body);
  assert.deepEqual(page.json().data.map((r: any) => r.id), [review.id]);

  const guest = await t.api(await createKey(t, tree.accountId, tree.regions[0], ['guests:write']), 'POST', '/guests',
    { email: 'upper@example.com', property_id: upper(tree.properties[0]) });
  assert.equal(guest.statusCode, 201, guest.body);
  assert.equal(guest.json().property_id, tree.properties[0]);

  const account = await t.admin('GET', `/accounts/${upper(tree.accountId)}`);
  assert.equal(account.statusCode, 200, account.body);
  assert.equal(account.json().id, tree.accountId);
  const node = await t.admin('POST', `/accounts/${tree.accountId}/nodes`, { name: 'Annex', type: 'property', parent_id: upper(tree.regions[1]) });
  assert.equal(node.statusCode, 201, node.body);
  assert.equal(node.json().parent_id, tree.regions[1]);
});
