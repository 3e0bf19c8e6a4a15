// Per-client limits count an IPv6 client by its /64 (src/http/client-address.ts): a client that
// takes a fresh address of its block for every try still meets the sign-in throttle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientAddress } from '../../src/http/client-address.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, csrfOf, DashboardClient } from '../support/dashboard.ts';

test('an IPv4 address is its own client, an IPv6 one its /64, a mapped one the IPv4 it carries', () => {
  assert.equal(clientAddress('203.0.113.7'), '203.0.113.7');
  assert.equal(clientAddress('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientAddress('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.notEqual(clientAddress('2001:db8:1:3::1'), clientAddress('2001:db8:1:2::1'));
});

eachDatabase('sign-in failures from ever new addresses of one IPv6 /64 are one client\'s: the throttle holds', async (t) => {
  const tree = await createTree(t);
  await createUser(t, tree.accountId, 'owner');
  const client = new DashboardClient(t);
  const csrf = csrfOf((await client.get('/login')).body);
  const statuses: number[] = [];
  for (let i = 1; i <= 12; i++) {
    // A different e-mail each time, so only the address's count can stop them.
    const res = await t.app.inject({
      method: 'POST', url: '/login', remoteAddress: `2001:db8:7:7::${i.toString(16)}`,
      payload: new URLSearchParams({ _csrf: csrf, email: `nobody${i}@example.com`, password: 'wrong password' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    statuses.push(res.statusCode);
  }
  assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
  assert.ok(statuses.slice(5).every((status) => status === 429), statuses.join(' '));
}, { env: { LOGIN_ADDRESS_FAILURE_LIMIT: '5' } });
