// `repute users create` and `repute users delete` as real child processes: the password from a file
// (never an option), the user signs in to the dashboard, deletion ends its session.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from './run.ts';

eachDatabase('CLI creates a user from a password file, who signs in; users delete ends its session', async (t) => {
  const tree = await createTree(t);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const dir = mkdtempSync(join(tmpdir(), 'repute-users-'));
  try {
    const file = join(dir, 'password');
    writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
    const user = await reputeJson(['users', 'create', '--account', tree.accountId, '--email', 'GM@harbour.example', '--role', 'manager', '--node', tree.properties[0], '--password-file', file], env);
    assert.equal(user.email, 'GM@harbour.example');
    assert.equal(user.node_id, tree.properties[0]);
    const client = await signedIn(t, 'gm@harbour.example');
    assert.equal((await client.get('/')).statusCode, 200);

    // No terminal and no file: exit 2 naming the option; a short password: exit 2 naming the rule.
    const noTty = await repute(['users', 'create', '--account', tree.accountId, '--email', 'x@harbour.example', '--role', 'viewer'], env);
    assert.equal(noTty.code, 2);
    assert.match(noTty.stderr, /--password-file/);
    writeFileSync(file, 'short\n');
    const short = await repute(['users', 'create', '--account', tree.accountId, '--email', 'x@harbour.example', '--role', 'viewer', '--password-file', file], env);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /password must be 12 to 1024 characters long/);
    const role = await repute(['users', 'create', '--account', tree.accountId, '--email', 'x@harbour.example', '--role', 'admin', '--password-file', file], env);
    assert.equal(role.code, 2);
    assert.match(role.stderr, /--role must be one of: owner, manager, viewer/);

    // Listed for the operator, with its node; a table by default, JSON with --json; never a hash.
    const listed = await reputeJson(['users', 'list', '--account', tree.accountId, '--json'], env);
    assert.deepEqual(listed.data.map((u: any) => [u.id, u.email, u.role, u.node_name]), [[user.id, 'GM@harbour.example', 'manager', 'Harbour Hotel']]);
    assert.doesNotMatch(JSON.stringify(listed), /scrypt|password/i);
    const table = await repute(['users', 'list', '--account', tree.accountId], env);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^USER ID\s+EMAIL\s+ROLE\s+NODE\s+CREATED\n/);
    assert.match(table.stdout, /GM@harbour\.example\s+manager\s+Harbour Hotel/);
    const unknown = await repute(['users', 'list', '--account', '01234567-89ab-7def-8123-456789abcdef'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /account not found/);

    assert.deepEqual(await reputeJson(['users', 'delete', user.id], env), { id: user.id, deleted: true });
    assert.equal((await client.get('/')).statusCode, 303);
    assert.equal((await new DashboardClient(t).signIn('gm@harbour.example')).statusCode, 401);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
