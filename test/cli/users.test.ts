// `repute users create`, `list`, `password` and `delete` as real child processes: the password from a
// file (never an option), the user signs in to the dashboard, a reset or deletion ends its sessions.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from './run.ts';

eachDatabase('CLI creates a user from a password file, who signs in; users password and users delete end its sessions', async (t) => {
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

    // A user who forgot the password: the operator sets a new one, every session of the user ends.
    writeFileSync(file, 'a new password for the GM\n');
    assert.deepEqual(await reputeJson(['users', 'password', user.id, '--password-file', file], env),
      { id: user.id, email: 'GM@harbour.example', password_changed: true, sessions_ended: true });
    assert.equal((await client.get('/')).statusCode, 303, 'the session with the old password ended');
    assert.equal((await new DashboardClient(t).signIn('gm@harbour.example')).statusCode, 401, 'the old password no longer signs in');
    const again = await signedIn(t, 'gm@harbour.example', 'a new password for the GM');
    writeFileSync(file, 'short\n');
    const shortReset = await repute(['users', 'password', user.id, '--password-file', file], env);
    assert.equal(shortReset.code, 2);
    assert.match(shortReset.stderr, /password must be 12 to 1024 characters long/);
    const nobody = await repute(['users', 'password', '01234567-89ab-7def-8123-456789abcdef', '--password-file', file.replace('password', 'missing')], env);
    assert.equal(nobody.code, 2, 'an unreadable file is named before anything else');
    assert.match(nobody.stderr, /--password-file .*missing cannot be read/);
    writeFileSync(file, 'a long enough password\n');
    const unknownUser = await repute(['users', 'password', '01234567-89ab-7def-8123-456789abcdef', '--password-file', file], env);
    assert.equal(unknownUser.code, 1);
    assert.match(unknownUser.stderr, /user not found/);

    assert.deepEqual(await reputeJson(['users', 'delete', user.id], env), { id: user.id, deleted: true });
    assert.equal((await again.get('/')).statusCode, 303);
    assert.equal((await new DashboardClient(t).signIn('gm@harbour.example', 'a new password for the GM')).statusCode, 401);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
