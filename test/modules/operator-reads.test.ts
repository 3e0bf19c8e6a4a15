// The operator's read routes (/admin/v1): accounts paged and one by one, an account's nodes as a
// tree, its API keys (revoked ones too) without their value or hash; and the CLI's `accounts list`,
// `nodes list` and `keys list`, as tables and as JSON.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createAccount, createKey, createTree } from '../support/factories.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from '../cli/run.ts';

eachDatabase('admin reads: accounts paged newest first, one account, nodes as a tree, keys without their value; 404s', async (t) => {
  const tree = await createTree(t, { name: 'Alpine' });
  const others = [await createAccount(t, { name: 'Second' }), await createAccount(t, { name: 'Third' })];
  const first = await t.admin('GET', '/accounts?limit=2');
  assert.equal(first.statusCode, 200, first.body);
  const page1 = first.json();
  assert.deepEqual(page1.data.map((a: any) => a.id), [others[1], others[0]]);
  assert.equal(page1.has_more, true);
  const page2 = (await t.admin('GET', `/accounts?limit=2&cursor=${page1.next_cursor}`)).json();
  assert.deepEqual(page2.data.map((a: any) => a.id), [tree.accountId]);
  assert.deepEqual([page2.has_more, page2.next_cursor], [false, null]);
  const bad = await t.admin('GET', '/accounts?cursor=%%%');
  assert.equal(bad.statusCode, 400);
  assert.deepEqual(bad.json(), { error: 'querystring.cursor is not a next_cursor this list gave', code: 'cursor_invalid' });
  assert.equal((await t.admin('GET', '/accounts?limit=0')).statusCode, 400);

  const one = (await t.admin('GET', `/accounts/${tree.accountId}`)).json();
  assert.deepEqual(Object.keys(one).sort(), ['created_at', 'id', 'name', 'plan_features', 'webhook_endpoint_limit']);
  assert.equal(one.name, 'Alpine');
  for (const path of ['/accounts/00000000-0000-7000-8000-000000000000', '/accounts/nope', '/accounts/nope/nodes', '/accounts/nope/api-keys', '/api-keys/nope']) {
    const r = await t.admin('GET', path);
    assert.equal(r.statusCode, 404, path);
    assert.ok(r.json().error, path);
  }

  const nodes = (await t.admin('GET', `/accounts/${tree.accountId}/nodes`)).json().data;
  assert.equal(nodes.length, 1);
  assert.deepEqual([nodes[0].id, nodes[0].type, nodes[0].parent_id], [tree.root, 'account', null]);
  assert.deepEqual(nodes[0].children.map((n: any) => n.id).sort(), [...tree.regions].sort());
  const north = nodes[0].children.find((n: any) => n.id === tree.regions[0]);
  assert.deepEqual(north.children.map((n: any) => n.id).sort(), [tree.properties[0], tree.properties[1]].sort());
  assert.deepEqual(north.children[0].children, []);
  assert.deepEqual((await t.admin('GET', `/accounts/${others[0]}/nodes`)).json().data, []);

  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  assert.equal((await t.api(key, 'GET', '/reviews')).statusCode, 200);
  const revoked = (await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.root, scopes: ['nodes:read'], name: 'Old' })).json();
  await t.admin('DELETE', `/api-keys/${revoked.id}`);
  const listed = await t.admin('GET', `/accounts/${tree.accountId}/api-keys`);
  assert.ok(!listed.body.includes(key) && !listed.body.includes(revoked.key) && !listed.body.includes('key_hash'), 'never a key or its hash');
  const keys = listed.json().data;
  assert.deepEqual(keys.map((k: any) => [k.node_id, k.scopes, k.name, k.revoked_at === null]), [
    [tree.root, ['nodes:read'], 'Old', false], [tree.regions[0], ['reviews:read'], null, true],
  ]);
  assert.deepEqual(Object.keys(keys[0]).sort(), ['account_id', 'created_at', 'id', 'last_used_at', 'name', 'node_id', 'revoked_at', 'scopes']);
  assert.match(keys[1].last_used_at, /^\d{4}-/, 'the key was used');
  assert.deepEqual((await t.admin('GET', `/api-keys/${keys[0].id}`)).json(), keys[0]);
});

eachDatabase('CLI: accounts list, nodes list and keys list, as tables and --json', async (t) => {
  const tree = await createTree(t, { name: 'Alpine' });
  await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const accounts = await repute(['accounts', 'list'], env);
  assert.equal(accounts.code, 0, accounts.stderr);
  assert.match(accounts.stdout, /^ACCOUNT\s+CREATED\s+WEBHOOKS\s+FEATURES\s+NAME\n/);
  assert.match(accounts.stdout, new RegExp(`${tree.accountId}\\s+\\S+\\s+20\\s+\\S+\\s+Alpine`));
  assert.deepEqual((await reputeJson(['accounts', 'list', '--json'], env)).data.map((a: any) => a.id), [tree.accountId]);

  const nodes = await repute(['nodes', 'list', '--account', tree.accountId], env);
  assert.equal(nodes.code, 0, nodes.stderr);
  const lines = nodes.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 6);
  assert.match(lines[0]!, new RegExp(`^Group \\(account\\)  ${tree.root}$`));
  assert.ok(lines.slice(1).every((l) => l.startsWith('  ')), nodes.stdout);
  assert.ok(lines.some((l) => new RegExp(`^    Harbour Hotel \\(property\\)  ${tree.properties[0]}$`).test(l)), nodes.stdout);
  assert.equal((await reputeJson(['nodes', 'list', '--account', tree.accountId, '--json'], env)).data[0].children.length, 2);

  const keys = await repute(['keys', 'list', '--account', tree.accountId], env);
  assert.equal(keys.code, 0, keys.stderr);
  assert.match(keys.stdout, /^KEY ID\s+NODE\s+CREATED\s+LAST USED\s+REVOKED\s+SCOPES\s+NAME\n/);
  assert.doesNotMatch(keys.stdout, /rpt_/);
  const json = await reputeJson(['keys', 'list', '--account', tree.accountId, '--json'], env);
  assert.deepEqual(json.data.map((k: any) => k.scopes), [['reviews:read']]);
  const missing = await repute(['keys', 'list', '--account', '00000000-0000-7000-8000-000000000000'], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /account not found/);
});
