// The address guard: every resolved address is vetted (private, reserved and special ranges, and
// their IPv4-mapped, 6to4 and NAT64 forms), the connection goes to the vetted address with the
// URL's Host and TLS name, WEBHOOK_ALLOW_PRIVATE admits exact IPs, CIDRs or host:port, and a
// refused delivery records why. Only loopback traffic: 127.0.0.1 is the admitted receiver.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../src/config.ts';
import { vetAddress, vettedAddress, type Lookup } from '../../src/delivery/address-guard.ts';
import { parseAllowList } from '../../src/lib/allow-list.ts';
import { createTestApp, dialects } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import type { TestApp } from '../support/app.ts';
import { createEndpoint, deliveries, sleep, until, verified, WEBHOOK_ENV, worker } from './helpers.ts';

test('vetAddress refuses every private, reserved or special range and their embedded forms', () => {
  const none = parseAllowList([]);
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/], ['127.0.0.2', /loopback/], ['::1', /loopback/],
    ['10.0.0.1', /private/], ['172.16.5.4', /private/], ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/], ['fe80::1', /link-local/],
    ['100.64.0.1', /CGNAT/], ['224.0.0.251', /multicast/], ['ff02::1', /multicast/],
    ['192.0.2.10', /documentation/], ['198.51.100.1', /documentation/], ['203.0.113.9', /documentation/], ['2001:db8::1', /documentation/],
    ['198.18.0.1', /benchmark/], ['2001:2::1', /benchmark/], ['240.0.0.1', /reserved/], ['0.0.0.0', /unspecified/], ['::', /unspecified/],
    ['255.255.255.255', /broadcast/], ['fc00::1', /unique-local/], ['fd00:abcd::1', /unique-local/],
    ['::ffff:127.0.0.1', /IPv4-mapped form of a loopback/], ['::ffff:10.1.1.1', /IPv4-mapped form of a private/],
    ['::ffff:169.254.169.254', /IPv4-mapped form of a link-local/],
    ['2002:7f00:1::1', /6to4 form of a loopback/], ['2002:c0a8:101::1', /6to4 form of a private/],
    ['64:ff9b::7f00:1', /NAT64 form of a loopback/], ['64:ff9b::a9fe:a9fe', /NAT64 form of a link-local/], ['64:ff9b:1::1', /NAT64/],
    ['2001::1', /Teredo/], ['::2', /not a global unicast/], ['100::1', /discard/],
  ];
  for (const [address, reason] of refused) assert.match(vetAddress(none, address) ?? 'admitted', reason, address);
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1', '64:ff9b::808:808']) {
    assert.equal(vetAddress(none, address), null, address);
  }
});

test('WEBHOOK_ALLOW_PRIVATE admits exact IPs, CIDR ranges and host:port pairs, and nothing else', async () => {
  const allow = parseAllowList(['127.0.0.1/32', '10.1.0.0/16', 'fd00::5', 'hooks.internal:8443', '[::1]:9000']);
  assert.equal(vetAddress(allow, '127.0.0.1'), null);
  assert.equal(vetAddress(allow, '::ffff:127.0.0.1'), null);
  assert.match(vetAddress(allow, '127.0.0.2')!, /loopback/);
  assert.equal(vetAddress(allow, '10.1.200.3'), null);
  assert.match(vetAddress(allow, '10.2.0.1')!, /private/);
  assert.equal(vetAddress(allow, 'fd00::5'), null);
  assert.match(vetAddress(allow, 'fd00::6')!, /unique-local/);
  const lookup: Lookup = async () => [{ address: '10.9.9.9', family: 4 }];
  assert.deepEqual(await vettedAddress(allow, lookup, 'hooks.internal', 8443), { address: '10.9.9.9', family: 4 });
  await assert.rejects(vettedAddress(allow, lookup, 'hooks.internal', 443), /address refused: hooks\.internal resolves to a private address \(WEBHOOK_ALLOW_PRIVATE can admit it for development\)$/);
  assert.deepEqual(await vettedAddress(allow, lookup, '::1', 9000), { address: '::1', family: 6 });
  await assert.rejects(vettedAddress(allow, lookup, '::1', 9001), /loopback/);
  // One refused answer refuses the name, whatever else it resolves to.
  const mixed: Lookup = async () => [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }];
  await assert.rejects(vettedAddress(allow, mixed, 'mixed.test', 80), /mixed\.test resolves to a loopback address/);
  for (const bad of ['nonsense', 'host:99999', '10.0.0.0/33', 'http://x']) {
    assert.throws(() => parseAllowList([bad]), (error: unknown) => error instanceof ConfigError && /WEBHOOK_ALLOW_PRIVATE/.test(error.message), bad);
  }
});

async function refusedAttempt(t: TestApp, key: string, endpointId: string): Promise<any> {
  const [delivery] = await until(async () => {
    const list = await deliveries(t, key, endpointId);
    return list[0]?.attempt_count >= 1 ? list : null;
  }, 5000, 'a refused attempt');
  assert.equal(delivery.last_status_code, null);
  const detail = (await t.admin('GET', `/deliveries/${delivery.id}`)).json();
  return detail.attempts[0];
}

eachDatabase('deliveries to 127.0.0.2, [::1] or a name resolving to loopback are refused and say why', async (t) => {
  const admitted = await startReceiver('127.0.0.1');
  const other = await startReceiver('127.0.0.2');
  const v6 = await startReceiver('::1');
  const names: Record<string, string> = { 'sneaky.test': '127.0.0.2', 'fine.test': '127.0.0.1' };
  const lookup: Lookup = async (hostname) => (names[hostname] ? [{ address: names[hostname]!, family: 4 }] : []);
  const w = worker(t, { lookup });
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const byIp = await createEndpoint(t, key, `${other.url}/x`, ['review.received'], 'by ip');
    const byV6 = await createEndpoint(t, key, `${v6.url}/x`, ['review.received'], 'v6');
    const byName = await createEndpoint(t, key, `http://sneaky.test:${other.port}/x`, ['review.received'], 'by name');
    const good = await createEndpoint(t, key, `http://fine.test:${admitted.port}/x`, ['review.received'], 'good');
    await createReview(t, tree.accountId, tree.properties[0]);

    await admitted.waitFor((r) => r.length === 1);
    // The connection went to the vetted address, with the URL's Host.
    assert.equal(admitted.requests[0]!.headers.host, `fine.test:${admitted.port}`);
    verified(good.secret, admitted.requests[0]!);
    assert.match((await refusedAttempt(t, key, byIp.endpoint.id)).error, /address refused: 127\.0\.0\.2 is a loopback address/);
    assert.match((await refusedAttempt(t, key, byV6.endpoint.id)).error, /address refused: ::1 is a loopback address/);
    assert.match((await refusedAttempt(t, key, byName.endpoint.id)).error, /sneaky\.test resolves to a loopback address/);
    await sleep(300);
    assert.equal(other.requests.length, 0);
    assert.equal(v6.requests.length, 0);
  } finally {
    await w.stop();
    await Promise.all([admitted.close(), other.close(), v6.close()]);
  }
}, { env: WEBHOOK_ENV });

eachDatabase('a DNS answer that changes after the check cannot redirect the connection', async (t) => {
  const admitted = await startReceiver('127.0.0.1');
  const other = await startReceiver('127.0.0.2');
  let calls = 0;
  // Vetted once as 127.0.0.1; any later resolution would say 127.0.0.2.
  const lookup: Lookup = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
  const w = worker(t, { lookup });
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    await createEndpoint(t, key, `http://rebind.test:${admitted.port}/x`, ['review.received']);
    await createReview(t, tree.accountId, tree.properties[0]);
    await admitted.waitFor((r) => r.length === 1);
    assert.equal(calls, 1, 'resolved once per connection, by Repute');
    assert.equal(other.requests.length, 0);
  } finally {
    await w.stop();
    await Promise.all([admitted.close(), other.close()]);
  }
}, { env: WEBHOOK_ENV });

eachDatabase('the TLS connection to the vetted address carries the URL\'s host name (SNI)', async (t) => {
  const seen: string[] = [];
  // No certificate: the handshake fails after the server has read the name the client asked for.
  const server = tls.createServer({ SNICallback: (name, callback) => { seen.push(name); callback(new Error('test server has no certificate'), undefined as never); } });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const w = worker(t, { lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const { endpoint } = await createEndpoint(t, key, `https://hooks.example.test:${port}/x`, ['review.received']);
    await createReview(t, tree.accountId, tree.properties[0]);
    const attempt = await refusedAttempt(t, key, endpoint.id);
    assert.ok(attempt.error);
    assert.equal(seen[0], 'hooks.example.test');
  } finally {
    await w.stop();
    server.close();
  }
}, { env: WEBHOOK_ENV });

for (const dialect of dialects) {
  test(`with nothing allowed, the system resolver's localhost is refused; a host:port entry admits exactly that [${dialect}]`, async () => {
    const receiver = await startReceiver('127.0.0.1');
    for (const [allow, delivered] of [['', false], [`localhost:${receiver.port}`, true]] as const) {
      const t = await createTestApp(dialect, { env: { ...WEBHOOK_ENV, WEBHOOK_ALLOW_PRIVATE: allow } });
      const w = worker(t);
      try {
        const tree = await createTree(t);
        const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
        const byName = await createEndpoint(t, key, `http://localhost:${receiver.port}/name`, ['review.received']);
        const byIp = await createEndpoint(t, key, `http://127.0.0.1:${receiver.port}/ip`, ['review.received']);
        await createReview(t, tree.accountId, tree.properties[0]);
        if (delivered) {
          await receiver.waitFor((r) => r.some((x) => x.path === '/name'));
        } else {
          assert.match((await refusedAttempt(t, key, byName.endpoint.id)).error, /localhost resolves to a loopback address/);
        }
        assert.match((await refusedAttempt(t, key, byIp.endpoint.id)).error, /127\.0\.0\.1 is a loopback address/);
        assert.ok(!receiver.requests.some((x) => x.path === '/ip'));
      } finally {
        await w.stop();
        await t.close();
      }
    }
    await receiver.close();
  });
}
