// `repute accounts/nodes/keys create` and `keys revoke` as real child processes: what they print, that the
// key works on the API until revoked, and that bad input exits non-zero with one line naming the option.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from './run.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

eachDatabase('CLI creates an account, its hierarchy and a key that works on the API; keys revoke turns it off', async (t) => {
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const account = await reputeJson(['accounts', 'create', '--name', 'CLI Hotels', '--features', 'reviews,nodes', '--webhook-limit', '3'], env);
  assert.match(account.id, UUID);
  assert.deepEqual({ ...account, id: undefined, created_at: undefined },
    { id: undefined, name: 'CLI Hotels', plan_features: ['reviews', 'nodes'], webhook_endpoint_limit: 3, created_at: undefined });

  const root = await reputeJson(['nodes', 'create', '--account', account.id, '--name', 'CLI Hotels', '--type', 'account'], env);
  assert.deepEqual({ ...root, id: undefined }, { id: undefined, name: 'CLI Hotels', parent_id: null, type: 'account' });
  const region = await reputeJson(['nodes', 'create', '--account', account.id, '--name', 'North', '--type', 'region', '--parent', root.id], env);
  const hotel = await reputeJson(['nodes', 'create', '--account', account.id, '--name', 'Harbour Hotel', '--type', 'property', '--parent', region.id], env);
  assert.equal(hotel.parent_id, region.id);

  const created = await repute(['keys', 'create', '--account', account.id, '--node', region.id, '--scopes', 'reviews:read,nodes:read', '--name', 'BI'], env);
  assert.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  assert.match(key.key, /^rpt_/);
  assert.deepEqual(key.scopes, ['reviews:read', 'nodes:read']);
  assert.match(created.stderr, /not shown again/);

  const nodes = await t.api(key.key, 'GET', '/nodes');
  assert.equal(nodes.statusCode, 200, nodes.body);
  assert.deepEqual(nodes.json().data.map((n: any) => n.id).sort(), [region.id, hotel.id].sort());
  const whoami = (await t.api(key.key, 'GET', '/whoami')).json();
  assert.deepEqual(whoami, { account_id: account.id, node_id: region.id, scopes: ['reviews:read', 'nodes:read'] });
  // The plan has no analytics: the key gets nothing there even with the scope missing or not.
  assert.equal((await t.api(key.key, 'GET', '/analytics/scores')).statusCode, 403);

  const revoked = await reputeJson(['keys', 'revoke', key.id], env);
  assert.deepEqual(revoked, { id: key.id, revoked: true });
  t.ctx.principals.clear(); // this in-process server would otherwise notice within its 2-second cache
  assert.equal((await t.api(key.key, 'GET', '/whoami')).statusCode, 401);
});

eachDatabase('CLI errors: one line naming the option and the rule; exit 2 for a bad option value, 1 for a failure', async (t) => {
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const account = await reputeJson(['accounts', 'create', '--name', 'Errors'], env);
  assert.deepEqual(account.plan_features, ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks']);
  const root = await reputeJson(['nodes', 'create', '--account', account.id, '--name', 'Root', '--type', 'account'], env);
  const hotel = await reputeJson(['nodes', 'create', '--account', account.id, '--name', 'Hotel', '--type', 'property', '--parent', root.id], env);

  const cases: Array<[string[], RegExp, number]> = [
    [['accounts', 'create', '--name', 'X', '--features', 'reviews,teleport'], /--features has unknown feature teleport/, 2],
    [['accounts', 'create', '--name', 'X', '--webhook-limit', 'many'], /--webhook-limit.*whole number/, 2],
    [['nodes', 'create', '--account', account.id, '--name', 'Wing', '--type', 'wing', '--parent', hotel.id], /--parent is a property.*leaf/, 2],
    [['nodes', 'create', '--account', account.id, '--name', 'Second root', '--type', 'account'], /already has its root node/, 2],
    [['nodes', 'create', '--account', '01234567-89ab-7def-8123-456789abcdef', '--name', 'N', '--type', 'region'], /account not found/, 1],
    [['keys', 'create', '--account', account.id, '--node', hotel.id, '--scopes', 'reviews:read,root:all'], /--scopes has unknown scope root:all/, 2],
    [['keys', 'create', '--account', account.id, '--node', 'nope', '--scopes', 'reviews:read'], /--node must be a node of this account/, 2],
    [['keys', 'revoke', '01234567-89ab-7def-8123-456789abcdef'], /api key not found/, 1],
    [['accounts', 'create', '--name', ''], /^repute: --name must NOT have fewer than 1 characters/, 2],
    [['nodes', 'create', '--account', account.id, '--name', 'W', '--type', 'Bad Type', '--parent', root.id], /^repute: --type must match pattern/, 2],
    [['guests', 'erase', '--account', account.id, '--property', root.id, '--email', 'a@b.example'], /^repute: --property is a/, 2],
  ];
  // Independent calls: run side by side (each child process mostly loads code).
  const results = await Promise.all(cases.map(([args]) => repute(args, env)));
  for (const [i, [args, message, exitCode]] of cases.entries()) {
    const r = results[i]!;
    assert.equal(r.code, exitCode, `${args.join(' ')}: ${r.stderr}`);
    const first = r.stderr.split('\n')[0]!;
    assert.match(first, /^repute: /, args.join(' '));
    assert.match(first, message, args.join(' '));
    assert.equal(r.stdout, '');
  }
  // Nothing was created by the failed calls.
  assert.equal((await t.ctx.db.selectFrom('accounts').select('id').execute()).length, 1);
  assert.equal((await t.ctx.db.selectFrom('nodes').select('id').execute()).length, 2);
  assert.equal((await t.ctx.db.selectFrom('api_keys').select('id').execute()).length, 0);
});

eachDatabase('every command has --help', async (t) => {
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const commands = [['accounts', 'create'], ['nodes', 'create'], ['keys', 'create'], ['keys', 'revoke'], ['import'], ['demo']];
  const results = await Promise.all(commands.map((command) => repute([...command, '--help'], env)));
  for (const [i, command] of commands.entries()) {
    const r = results[i]!;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`Usage: repute ${command.join(' ')}`));
  }
});
