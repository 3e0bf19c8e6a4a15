// The signing secret: signed with node:crypto so that the standardwebhooks library verifies it,
// sealed at rest with REPUTE_SECRET_KEY (AES-256-GCM, bound to its endpoint), and absent from
// every log line, answer and event while endpoints are managed and deliveries made.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { buildApp } from '../../src/app.ts';
import { newSecret, secretKey, sign, webhookHeaders } from '../../src/delivery/signer.ts';
import { startWorker } from '../../src/delivery/worker.ts';
import { open, seal } from '../../src/lib/secret-box.ts';
import { checkSecretKey } from '../../src/process/secret-key-check.ts';
import { createTestApp, dialects, freshDatabase, testEnv, ADMIN_TOKEN } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, sleep, until, verified, WEBHOOK_ENV } from './helpers.ts';

test('node:crypto signatures verify with the standardwebhooks library, and match its own', () => {
  const secret = newSecret();
  const body = JSON.stringify({ id: 'x', type: 'ping', data: { text: 'héllo ✓' } });
  const headers = webhookHeaders(secretKey(secret), 'msg_1', body);
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  const now = new Date();
  assert.equal(sign(secretKey(secret), 'msg_1', Math.floor(now.getTime() / 1000), body), new Webhook(secret).sign('msg_1', now, body));
  assert.throws(() => new Webhook(newSecret()).verify(body, headers));
  assert.throws(() => new Webhook(secret).verify(body + ' ', headers));
});

test('secrets are sealed with AES-256-GCM under the key, bound to their row', () => {
  const key = Buffer.alloc(32, 1);
  const sealed = seal(key, 'whsec_abc', 'row-1');
  assert.notEqual(seal(key, 'whsec_abc', 'row-1'), sealed, 'a fresh IV each time');
  assert.equal(open(key, sealed, 'row-1'), 'whsec_abc');
  assert.throws(() => open(Buffer.alloc(32, 2), sealed, 'row-1'));
  assert.throws(() => open(key, sealed, 'row-2'));
  const raw = Buffer.from(sealed.slice(3), 'base64');
  raw[raw.length - 1]! ^= 1;
  assert.throws(() => open(key, 'v1.' + raw.toString('base64'), 'row-1'));
});

for (const dialect of dialects) {
  test(`the secret never appears in a log line, an answer or an event, even at trace level [${dialect}]`, async () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    const receiver = await startReceiver();
    receiver.answer((_r, i) => (i === 0 ? { status: 500, body: 'try again' } : { status: 200 }));
    const testDb = await freshDatabase(dialect);
    const config = loadConfig(testEnv(testDb, { ...WEBHOOK_ENV, LOG_LEVEL: 'trace' }));
    const ctx = createContext(config, testDb.database);
    const app = await buildApp(ctx, { logger: { level: 'trace', stream } });
    const worker = startWorker({ store: ctx.stores.deliveries, commits: testDb.database.commits, config, log: app.log });
    const answers: string[] = [];
    const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, body?: unknown) => {
      const r = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body as object } : {}) });
      answers.push(r.body);
      return r.json();
    };
    try {
      const account = await call('POST', '/admin/v1/accounts', ADMIN_TOKEN, { name: 'Group' });
      const root = await call('POST', `/admin/v1/accounts/${account.id}/nodes`, ADMIN_TOKEN, { name: 'Root', type: 'account', parent_id: null });
      const { key } = await call('POST', `/admin/v1/accounts/${account.id}/api-keys`, ADMIN_TOKEN, { node_id: root.id, scopes: ['webhooks:manage'] });
      const created = await call('POST', '/api/v4/webhooks', key, { name: 'Ops', url: receiver.url, events: ['review.received'] });
      const secret: string = created.secret;
      answers.shift(); // the creation answer is the one place the secret may be
      answers.pop();
      await call('GET', '/api/v4/webhooks', key);
      await call('PATCH', `/api/v4/webhooks/${created.endpoint.id}`, key, { name: 'Ops 2' });
      await call('POST', `/api/v4/webhooks/${created.endpoint.id}/test`, key);
      await receiver.waitFor((r) => r.length === 2);
      const deliveries = await call('GET', `/api/v4/webhooks/${created.endpoint.id}/deliveries`, key);
      await call('GET', `/admin/v1/deliveries/${deliveries.data[0].id}`, ADMIN_TOKEN);
      await worker.stop();

      assert.ok(lines.length > 10, 'the logs were captured');
      const needles = [secret, secret.slice('whsec_'.length), secretKey(secret).toString('hex')];
      const events = await testDb.database.db.selectFrom('events').select('payload').execute();
      const attempts = await testDb.database.db.selectFrom('webhook_attempts').selectAll().execute();
      const haystacks = { logs: lines.join(''), answers: answers.join(''), events: JSON.stringify(events), attempts: JSON.stringify(attempts) };
      for (const [where, text] of Object.entries(haystacks)) {
        for (const needle of needles) assert.ok(!text.includes(needle), `the secret is in the ${where}`);
      }
      for (const request of receiver.requests) assert.ok(!request.body.includes(secret.slice(6)));
    } finally {
      await worker.stop();
      await app.close();
      await ctx.rateLimits.close();
      await testDb.drop();
      await receiver.close();
    }
  });
}

test('at start, a REPUTE_SECRET_KEY that cannot open this database\'s webhook secrets is logged as an error', async () => {
  const t = await createTestApp('sqlite');
  try {
    const errors: string[] = [];
    const log = { error: (_object: object, message: string) => errors.push(message) };
    assert.equal(await checkSecretKey(t.ctx.db, t.config.secretKey, log), true, 'nothing sealed yet: nothing to check');
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    await createEndpoint(t, key, 'https://hooks.example.com/x', ['review.received']);
    assert.equal(await checkSecretKey(t.ctx.db, t.config.secretKey, log), true);
    assert.deepEqual(errors, []);
    assert.equal(await checkSecretKey(t.ctx.db, Buffer.alloc(32, 9), log), false);
    assert.match(errors[0] ?? '', /^REPUTE_SECRET_KEY is not the key this database was written with/);
  } finally {
    await t.close();
  }
});

for (const dialect of dialects) {
  test(`a delivery whose secret another key sealed waits without spending an attempt; the right key, or a new secret, sends it [${dialect}]`, async () => {
    const t = await createTestApp(dialect, { env: WEBHOOK_ENV });
    const receiver = await startReceiver();
    const errors: string[] = [];
    const log = { debug() {}, info() {}, warn() {}, error: (_object: object, message: string) => errors.push(message) };
    const otherKey = { ...t.config, secretKey: Buffer.alloc(32, 9) };
    const workers: Array<ReturnType<typeof startWorker>> = [];
    const run = (config: typeof t.config) => {
      const w = startWorker({ store: t.ctx.stores.deliveries, commits: t.testDb.database.commits, config, log });
      workers.push(w);
      return w;
    };
    const row = (endpointId: string) => t.ctx.db.selectFrom('webhook_deliveries').select(['status', 'attempt_count', 'next_attempt_at'])
      .where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow();
    const attemptsOf = async (endpointId: string) => (await t.ctx.db.selectFrom('webhook_attempts').innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select('webhook_attempts.id').where('webhook_deliveries.endpoint_id', '=', endpointId).execute()).length;
    try {
      const tree = await createTree(t);
      const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
      const { endpoint, secret } = await createEndpoint(t, key, receiver.url, ['review.received']);
      assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`)).statusCode, 200);

      // A worker started with another key: nothing is sent, no attempt is written, the delivery waits a minute.
      const wrong = run(otherKey);
      await until(async () => errors.length > 0, 10_000, 'the error about the key');
      assert.match(errors[0]!, new RegExp(`webhook endpoint ${endpoint.id}: its signing secret cannot be opened with this REPUTE_SECRET_KEY`));
      await until(async () => (await row(endpoint.id)).next_attempt_at > new Date(Date.now() + 30_000).toISOString(), 10_000, 'the delivery handed back for later');
      await sleep(300); // several polls of the worker
      await wrong.stop();
      const waiting = await row(endpoint.id);
      assert.equal(waiting.status, 'pending');
      assert.equal(waiting.attempt_count, 0, 'no attempt of the schedule was spent');
      assert.equal(await attemptsOf(endpoint.id), 0);
      assert.equal(receiver.requests.length, 0);
      assert.equal(errors.length, 1, 'said once, not on every poll');

      // The original key back: the delivery goes out once it is due (made due now here, not in a minute).
      await t.ctx.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date().toISOString() }).where('endpoint_id', '=', endpoint.id).execute();
      const right = run(t.config);
      await receiver.waitFor((r) => r.length === 1, 10_000, 'the delivery with the right key');
      assert.ok(verified(secret, receiver.requests[0]!));
      await right.stop();

      // The original key lost for good: a new secret sealed with the key in use signs on its own,
      // while the previous one (sealed with the lost key) cannot be opened.
      const rotated = await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, {});
      assert.equal(rotated.statusCode, 200, rotated.body);
      await t.ctx.db.updateTable('webhook_endpoints').set({ secret_enc: seal(otherKey.secretKey, rotated.json().secret, endpoint.id) }).where('id', '=', endpoint.id).execute();
      assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`)).statusCode, 200);
      run(otherKey);
      await receiver.waitFor((r) => r.length === 2, 10_000, 'the delivery signed with the new secret alone');
      assert.ok(verified(rotated.json().secret, receiver.requests[1]!));
      assert.equal(String(receiver.requests[1]!.headers['webhook-signature']).split(' ').length, 1, 'one signature: the previous secret could not be opened');
    } finally {
      for (const w of workers) await w.stop();
      await receiver.close();
      await t.close();
    }
  });
}
