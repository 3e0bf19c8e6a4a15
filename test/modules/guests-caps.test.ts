// The stored custom fields of a guest and of a stay are capped (100 keys, 16 KiB as JSON) after the
// merge: a push that would pass the cap answers 400 naming the field and the limit, and stores nothing.
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';

const push = (t: TestApp, key: string, body: unknown) => t.api(key, 'POST', '/guests', body);

async function stored(t: TestApp, accountId: string, propertyId: string, email: string): Promise<any> {
  const r = await t.admin('GET', `/accounts/${accountId}/guests?property_id=${propertyId}&email=${encodeURIComponent(email)}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

/** n keys named prefix0…, each holding a value of `size` characters. */
const fields = (prefix: string, n: number, size = 1): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v'.repeat(size)]));

eachDatabase('a push whose merge passes 100 stored custom-field keys answers 400 and changes nothing', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const email = 'caps.keys@example.com';
  const first = await push(t, key, { email, first_name: 'Ann', custom_fields: fields('a', 60), reservation: { external_id: 'R-1', custom_fields: fields('s', 100) } });
  assert.equal(first.statusCode, 201, first.body);
  const before = await stored(t, tree.accountId, tree.properties[0], email);

  // 60 stored + 41 new = 101 keys on the guest; the other fields of the push must not be written either.
  const over = await push(t, key, { email, first_name: 'Changed', custom_fields: fields('b', 41), reservation: { external_id: 'R-1', channel: 'x' } });
  assert.equal(over.statusCode, 400, over.body);
  assert.match(over.json().error, /^body\.custom_fields would hold 101 keys .*the limit is 100 keys/);
  assert.deepEqual(await stored(t, tree.accountId, tree.properties[0], email), before, 'the stored guest is unchanged');

  // The stay has its own cap: 100 stored + 1 new.
  const stayOver = await push(t, key, { email, first_name: 'Changed', reservation: { external_id: 'R-1', custom_fields: { extra: 1 } } });
  assert.equal(stayOver.statusCode, 400, stayOver.body);
  assert.match(stayOver.json().error, /^body\.reservation\.custom_fields would hold 101 keys/);
  assert.deepEqual(await stored(t, tree.accountId, tree.properties[0], email), before, 'the stored guest and stay are unchanged');

  // Overwriting stored keys and reaching exactly 100 is fine.
  const at = await push(t, key, { email, custom_fields: { ...fields('a', 10, 3), ...fields('b', 40) } });
  assert.equal(at.statusCode, 200, at.body);
  assert.equal(Object.keys((await stored(t, tree.accountId, tree.properties[0], email)).custom_fields).length, 100);
});

eachDatabase('a push whose merge passes 16 KiB of stored custom fields answers 400 and changes nothing', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const email = 'caps.bytes@example.com';
  // 7 keys of 2,000 characters: about 14 KB, under the cap.
  assert.equal((await push(t, key, { email, custom_fields: fields('a', 7, 2000) })).statusCode, 201);
  const before = await stored(t, tree.accountId, tree.properties[0], email);
  const over = await push(t, key, { email, custom_fields: fields('b', 2, 2000) });
  assert.equal(over.statusCode, 400, over.body);
  assert.match(over.json().error, /^body\.custom_fields would hold \d+ bytes as JSON .*the limit is 16384 bytes/);
  assert.deepEqual(await stored(t, tree.accountId, tree.properties[0], email), before);

  // One push alone over the cap is refused before anything is looked up.
  const alone = await push(t, key, { email: 'caps.alone@example.com', reservation: { external_id: 'R-2', custom_fields: fields('c', 9, 2000) } });
  assert.equal(alone.statusCode, 400, alone.body);
  assert.match(alone.json().error, /^body\.reservation\.custom_fields holds \d+ bytes as JSON; the limit is 16384 bytes/);
  const none = await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=caps.alone%40example.com`);
  assert.equal(none.statusCode, 404);
});
