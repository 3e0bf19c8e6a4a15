// Dashboard users through the admin API (src/modules/users/admin.ts): create and delete, the e-mail
// unique whatever its case, the password rule, the node of the account only; the stored hash is scrypt.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { PASSWORD } from '../support/dashboard.ts';

eachDatabase('POST /admin/v1/accounts/{id}/users creates a user; DELETE removes it', async (t) => {
  const tree = await createTree(t);
  const res = await t.admin('POST', `/accounts/${tree.accountId}/users`, { email: 'GM@Harbour.example', password: PASSWORD, role: 'manager', node_id: tree.properties[0] });
  assert.equal(res.statusCode, 201, res.body);
  const user = res.json();
  assert.deepEqual(Object.keys(user).sort(), ['created_at', 'email', 'id', 'node_id', 'role']);
  assert.equal(user.email, 'GM@Harbour.example');
  assert.equal(user.role, 'manager');
  assert.equal(user.node_id, tree.properties[0]);
  const stored = await t.ctx.db.selectFrom('users').select(['password_hash', 'email_key']).where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.match(stored.password_hash, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  assert.ok(!stored.password_hash.includes(PASSWORD));
  assert.equal(stored.email_key, 'gm@harbour.example');

  const whole = await t.admin('POST', `/accounts/${tree.accountId}/users`, { email: 'owner@harbour.example', password: PASSWORD, role: 'owner' });
  assert.equal(whole.statusCode, 201);
  assert.equal(whole.json().node_id, null);

  assert.deepEqual((await t.admin('DELETE', `/users/${user.id}`)).json(), { id: user.id, deleted: true });
  assert.equal((await t.admin('DELETE', `/users/${user.id}`)).statusCode, 404);
  assert.equal((await t.admin('DELETE', '/users/not-a-uuid')).statusCode, 404);
});

eachDatabase('user creation refuses a taken e-mail (any case), a short password, a bad role and a foreign node', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t);
  const create = (body: Record<string, unknown>, account = tree.accountId) =>
    t.admin('POST', `/accounts/${account}/users`, { email: 'a@hotel.example', password: PASSWORD, role: 'viewer', ...body });
  assert.equal((await create({})).statusCode, 201);
  const taken = await create({ email: 'A@HOTEL.example' }, other.accountId);
  assert.equal(taken.statusCode, 409);
  assert.deepEqual(taken.json(), { error: 'email is already the e-mail of a user', code: 'conflict' });
  const short = await create({ email: 'b@hotel.example', password: 'elevenchars' });
  assert.equal(short.statusCode, 400);
  assert.match(short.json().error, /body\.password must NOT have fewer than 12 characters/);
  const role = await create({ email: 'c@hotel.example', role: 'admin' });
  assert.equal(role.statusCode, 400);
  assert.match(role.json().error, /body\.role must be one of: viewer, manager, owner/);
  const foreign = await create({ email: 'd@hotel.example', node_id: other.root });
  assert.equal(foreign.statusCode, 400);
  assert.equal(foreign.json().error, 'node_id must be a node of this account');
  const email = await create({ email: 'not an address' });
  assert.equal(email.statusCode, 400);
  assert.match(email.json().error, /email must be an e-mail address/);
  assert.equal((await create({ email: 'e@hotel.example' }, '01234567-89ab-7def-8123-456789abcdef')).statusCode, 404);
});
