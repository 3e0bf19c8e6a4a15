// Settings → API (src/web/dashboard/settings-api.ts): an owner creates a key that works on the
// public API, sees it listed with its last use, revokes it (401 at once); the page's reach is the
// user's subtree; viewers and managers get 403; output is escaped.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

const newKeyOf = (html: string): string => /data-testid="new-api-key">([^<]+)</.exec(html)?.[1] ?? '';

eachDatabase('an owner creates a key, uses it, sees its last use and revokes it', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const page = await client.get('/settings/api');
  assert.equal(page.statusCode, 200);
  for (const label of ['Name', 'Node', 'reviews:read', 'webhooks:manage']) assert.ok(page.body.includes(`>${label}</`), label);
  for (const name of ['Group', 'North', 'Harbour Hotel', 'Beach Resort']) assert.ok(page.body.includes(`>${name}</option>`), name);
  assert.match(page.body, /<button type="submit">Create key<\/button>/);

  const created = await client.submit('/settings/api', '/settings/api', { name: '<b>BI</b> export', node_id: tree.regions[0], scopes: ['reviews:read', 'nodes:read'] });
  assert.equal(created.statusCode, 201);
  const key = newKeyOf(created.body);
  assert.match(key, /^rpt_/);
  assert.ok(created.body.includes('&lt;b&gt;BI&lt;/b&gt; export'));
  assert.ok(!created.body.includes('<b>BI</b>'));

  const whoami = await t.api(key, 'GET', '/whoami');
  assert.equal(whoami.statusCode, 200, whoami.body);
  assert.equal(whoami.json().node_id, tree.regions[0]);
  assert.deepEqual(whoami.json().scopes, ['reviews:read', 'nodes:read']);

  const listed = await client.get('/settings/api');
  assert.ok(!listed.body.includes(key), 'the key is shown once only');
  assert.ok(!listed.body.includes('data-testid="new-api-key"'));
  const row = /<tr>\s*<th scope="row" id="key-[0-9a-f-]{36}">&lt;b&gt;BI&lt;\/b&gt; export<\/th>([\s\S]*?)<\/tr>/.exec(listed.body)?.[1] ?? '';
  assert.match(row, /<td data-label="Node">North<\/td>/);
  assert.match(row, /reviews:read, nodes:read/);
  assert.doesNotMatch(row, /never/, 'the key was used');
  // When, to the minute; the table says once that its times are UTC (the server knows no reader's time zone).
  assert.match(row, /<time datetime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2}<\/time>/);
  assert.doesNotMatch(row, /UTC/);
  assert.match(listed.body, /<\/table>\s*<\/div>\s*<p class="muted">Times are in UTC\.<\/p>/);

  const id = /action="\/settings\/api\/([0-9a-f-]{36})\/revoke"/.exec(row)?.[1];
  assert.ok(id);
  const revoked = await client.submit('/settings/api', `/settings/api/${id}/revoke`, {});
  assert.equal(revoked.statusCode, 303);
  assert.equal((await t.api(key, 'GET', '/whoami')).statusCode, 401);
  // The page it leads to says which key went.
  const after = await client.get(String(revoked.headers.location));
  assert.match(after.body, /<p class="notice" role="status" tabindex="-1" autofocus>The key “&lt;b&gt;BI&lt;\/b&gt; export” is revoked: it answers 401 from now on\.<\/p>/);
  // The key's escaped name, not "BI" alone: a page's random CSRF token holds "BI" about one time in 40.
  assert.ok(!(await client.get('/settings/api')).body.includes('&lt;b&gt;BI&lt;/b&gt; export'), 'a revoked key is not listed');
});

eachDatabase('a bad key form is shown again with the fault next to its field', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const noScope = await client.submit('/settings/api', '/settings/api', { name: 'kept', node_id: tree.root });
  assert.equal(noScope.statusCode, 400);
  assert.match(noScope.body, /id="scopes-fault">Please choose at least one\.</);
  assert.match(noScope.body, /value="kept"/);
  const other = await createTree(t);
  const foreign = await client.submit('/settings/api', '/settings/api', { node_id: other.root, scopes: ['reviews:read'] });
  assert.equal(foreign.statusCode, 400);
  assert.match(foreign.body, /id="node_id-fault">Please choose your own part of the account or one below it\./);
  const long = await client.submit('/settings/api', '/settings/api', { name: 'x'.repeat(201), node_id: tree.root, scopes: ['reviews:read'] });
  assert.equal(long.statusCode, 400);
  assert.match(long.body, /id="name-fault">At most 200 characters, please\.</);
  const forged = await client.submit('/settings/api', '/settings/api', { node_id: 'not-a-node', scopes: ['reviews:read', 'root:all'] });
  assert.equal(forged.statusCode, 400);
  // In the page's language.
  assert.equal((await client.submit('/account', '/account/language', { language: 'de' })).statusCode, 303);
  // Dates as German writes them (a key made through the admin API is listed).
  await createKey(t, tree.accountId, tree.root);
  const german = await client.submit('/settings/api', '/settings/api', { name: 'x'.repeat(201), node_id: tree.root });
  assert.match(german.body, /id="scopes-fault">Bitte wählen Sie mindestens eines aus\.</);
  assert.match(german.body, /<time datetime="[^"]+">\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}<\/time>/);
  assert.match(german.body, /Zeiten in UTC\./);
});

eachDatabase('an owner bound to a region reaches the keys and nodes of its subtree only', async (t) => {
  const tree = await createTree(t);
  const regional = await createUser(t, tree.accountId, 'owner', tree.regions[0]);
  await createKey(t, tree.accountId, tree.properties[2]); // South: outside the owner's reach
  const client = await signedIn(t, regional.email);
  const page = await client.get('/settings/api');
  assert.ok(page.body.includes('>Harbour Hotel</option>'));
  assert.ok(!page.body.includes('>Beach Resort</option>'));
  assert.ok(!page.body.includes('>Group</option>'));
  assert.ok(!page.body.includes('/revoke"'), 'the South key is not listed');

  const outside = await client.submit('/settings/api', '/settings/api', { node_id: tree.properties[2], scopes: ['reviews:read'] });
  assert.equal(outside.statusCode, 400);
  assert.match(outside.body, /id="node_id-fault">Please choose your own part of the account or one below it\.</);

  // A forged id of a key outside the subtree, of another account, or no id at all: 404.
  const other = await createTree(t);
  const ownerOfOther = await createUser(t, other.accountId, 'owner');
  const otherClient = await signedIn(t, ownerOfOther.email);
  const otherKey = newKeyOf((await otherClient.submit('/settings/api', '/settings/api', { node_id: other.root, scopes: ['reviews:read'] })).body);
  const otherId = /action="\/settings\/api\/([0-9a-f-]{36})\/revoke"/.exec((await otherClient.get('/settings/api')).body)?.[1];
  const southId = (await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.properties[2], scopes: ['reviews:read'] })).json().id;
  for (const id of [otherId, southId, 'not-a-uuid']) {
    const res = await client.submit('/settings/api', `/settings/api/${id}/revoke`, {});
    assert.equal(res.statusCode, 404, String(id));
  }
  assert.equal((await t.api(otherKey, 'GET', '/whoami')).statusCode, 200);
  // Another account's key, revoked, is not named on this account's page.
  await otherClient.submit('/settings/api', `/settings/api/${otherId}/revoke`, {});
  assert.doesNotMatch((await client.get(`/settings/api?revoked=${otherId}`)).body, /class="notice"/);
});

eachDatabase('webhook endpoints are account-wide: an owner bound to a region neither manages them nor grants webhooks:manage', async (t) => {
  const tree = await createTree(t);
  const regional = await createUser(t, tree.accountId, 'owner', tree.regions[0]);
  const client = await signedIn(t, regional.email);
  const page = await client.get('/settings/api');
  assert.ok(page.body.includes('value="reviews:read"'));
  assert.ok(!page.body.includes('value="webhooks:manage"'), 'the scope is not offered');
  assert.ok(!page.body.includes('href="/settings/webhooks"'), 'no Webhooks link');
  const forged = await client.submit('/settings/api', '/settings/api', { node_id: tree.regions[0], scopes: ['reviews:read', 'webhooks:manage'] });
  assert.equal(forged.statusCode, 400);
  assert.match(forged.body, /id="scopes-fault">scopes has webhooks:manage, which you may not grant/);
  const webhooks = await client.get('/settings/webhooks');
  assert.equal(webhooks.statusCode, 403);
  assert.match(webhooks.body, /only an owner of the whole account manages them/);
  assert.match((await client.get('/settings/webhooks', { 'accept-language': 'de' })).body, /Nur ein Inhaber des ganzen Kontos verwaltet sie\./);
  const created = await client.submit('/settings/api', '/settings/webhooks', { name: 'Mine', url: 'https://hooks.example.com/x', events: ['review.received'] });
  assert.equal(created.statusCode, 403);
  assert.equal((await t.api(await createKey(t, tree.accountId, tree.root, ['webhooks:manage']), 'GET', '/webhooks')).json().data.length, 0);

  // The owner of the whole account has both.
  const root = await signedIn(t, (await createUser(t, tree.accountId, 'owner')).email);
  const rootPage = await root.get('/settings/api');
  assert.ok(rootPage.body.includes('value="webhooks:manage"'));
  assert.ok(rootPage.body.includes('href="/settings/webhooks"'));
  assert.equal((await root.get('/settings/webhooks')).statusCode, 200);
});

eachDatabase('viewers and managers get 403 on Settings and no Settings link', async (t) => {
  const tree = await createTree(t);
  for (const role of ['viewer', 'manager'] as const) {
    const user = await createUser(t, tree.accountId, role);
    const client = await signedIn(t, user.email);
    for (const path of ['/settings/api', '/settings/webhooks', '/settings/users']) {
      const res = await client.get(path);
      assert.equal(res.statusCode, 403, `${role} ${path}`);
      assert.match(res.body, /Sign out/);
    }
    const post = await client.submit('/', '/settings/api', { node_id: tree.root, scopes: ['reviews:read'] });
    assert.equal(post.statusCode, 403);
    const home = await client.get('/');
    assert.equal(home.statusCode, 200);
    assert.doesNotMatch(home.body, /href="\/settings/);
  }
  const owner = await createUser(t, tree.accountId, 'owner');
  assert.match((await (await signedIn(t, owner.email)).get('/')).body, /<a href="\/settings\/api">Settings<\/a>/);
});
