// Issue 13's webhook additions, through a real receiver: GET /webhooks/{id}, last_error on each
// delivery, the one-attempt re-send (POST /webhooks/{id}/deliveries/{deliveryId}/retry), secret
// rotation with two signatures during the grace period, and auto-disable after uninterrupted failure.
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver, type ReceivedRequest } from '../support/receiver.ts';
import type { TestApp } from '../support/app.ts';
import { newSecret } from '../../src/delivery/signer.ts';
import { startWorker } from '../../src/delivery/worker.ts';
import { createEndpoint, deliveries, sleep, until, WEBHOOK_ENV, worker } from './helpers.ts';

async function setup(t: TestApp, url: string) {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const created = await createEndpoint(t, key, url, ['review.received']);
  return { tree, key, ...created };
}

const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const verifies = (secret: string, r: ReceivedRequest) => {
  try {
    new Webhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
};

async function settled(t: TestApp, key: string, endpointId: string, id: string, status: string): Promise<any> {
  return until(async () => (await deliveries(t, key, endpointId)).find((d) => d.id === id && d.status === status), 10_000, `delivery ${status}`);
}

eachDatabase('GET /webhooks/{id} answers the endpoint, never its secret, and 404 for another account\'s or a made-up id', async (t) => {
  const { tree, key, secret, endpoint } = await setup(t, 'https://hooks.example.com/in');
  const r = await t.api(key, 'GET', `/webhooks/${endpoint.id}`);
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(r.json(), { ...endpoint, disabled_reason: null, previous_secret_expires_at: null });
  assert.ok(!r.body.includes(secret.slice(6)));
  const other = await createTree(t);
  const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
  for (const [k, id] of [[otherKey, endpoint.id], [key, 'nope'], [key, '00000000-0000-4000-8000-000000000000']] as const) {
    const miss = await t.api(k, 'GET', `/webhooks/${id}`);
    assert.equal(miss.statusCode, 404, miss.body);
    assert.equal(miss.json().code, 'not_found');
  }
  const noScope = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  assert.equal((await t.api(noScope, 'GET', `/webhooks/${endpoint.id}`)).statusCode, 403);
  assert.equal((await t.api(null, 'GET', `/webhooks/${endpoint.id}`)).statusCode, 401);
});

eachDatabase('each delivery shows the reason of its last failed attempt; a re-send is one attempt and 409 while pending', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 500, body: 'boom' }));
  const w = worker(t);
  try {
    const { tree, key, secret, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const [first] = await deliveries(t, key, endpoint.id);
    const failed = await settled(t, key, endpoint.id, first.id, 'failed');
    assert.equal(failed.attempt_count, 3);
    assert.equal(failed.last_error, 'HTTP 500');

    // A re-send: one attempt (the schedule is spent, and a re-send never schedules more), still failed.
    const before = receiver.requests.length;
    const resent = await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    assert.equal(resent.statusCode, 202, resent.body);
    assert.equal(resent.json().id, failed.id);
    assert.equal(resent.json().status, 'pending');
    const again = await settled(t, key, endpoint.id, failed.id, 'failed');
    assert.equal(again.attempt_count, 4);
    await sleep(300);
    assert.equal(receiver.requests.length, before + 1, 'exactly one more request');
    assert.equal(receiver.requests.at(-1)!.headers['webhook-id'], receiver.requests[0]!.headers['webhook-id'], 'the same event id');

    // A delivered delivery can be re-sent too; a success does not erase the last failure's reason.
    receiver.answer(() => ({ status: 204 }));
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`)).statusCode, 202);
    const delivered = await settled(t, key, endpoint.id, failed.id, 'delivered');
    assert.equal(delivered.attempt_count, 5);
    assert.equal(delivered.last_status_code, 204);
    assert.equal(delivered.last_error, 'HTTP 500');
    assert.ok(verifies(secret, receiver.requests.at(-1)!));

    // A delivery that never failed has none.
    await createReview(t, tree.accountId, tree.properties[0]);
    const [fresh] = await deliveries(t, key, endpoint.id);
    const ok = await settled(t, key, endpoint.id, fresh.id, 'delivered');
    assert.equal(ok.last_error, null);

    // While it is pending (here: the attempt hangs), a re-send is refused.
    receiver.answer(() => 'stall');
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${ok.id}/retry`)).statusCode, 202);
    await receiver.waitFor((requests) => requests.length === before + 3, 5000, 'the stalled re-send');
    const busy = await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${ok.id}/retry`);
    assert.equal(busy.statusCode, 409, busy.body);
    assert.equal(busy.json().code, 'delivery_pending');
    receiver.release();
    await settled(t, key, endpoint.id, ok.id, 'delivered');

    // Another endpoint's delivery, a made-up id, another account: 404.
    const second = await createEndpoint(t, key, receiver.url, ['review.received'], 'Second');
    for (const url of [`/webhooks/${second.endpoint.id}/deliveries/${ok.id}/retry`, `/webhooks/${endpoint.id}/deliveries/nope/retry`]) {
      const r = await t.api(key, 'POST', url);
      assert.equal(r.statusCode, 404, `${url}: ${r.body}`);
    }
    const other = await createTree(t);
    const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
    assert.equal((await t.api(otherKey, 'POST', `/webhooks/${endpoint.id}/deliveries/${ok.id}/retry`)).statusCode, 404);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('a rotated secret is returned once; both secrets sign during the grace period, each verifying alone', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const { tree, key, secret: first, endpoint } = await setup(t, receiver.url);
    const started = Date.now();
    const r = await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`);
    assert.equal(r.statusCode, 200, r.body);
    const { secret: second, endpoint: rotated } = r.json();
    assert.match(second, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(second, first);
    // The default grace period: 24 hours.
    const expires = Date.parse(rotated.previous_secret_expires_at);
    assert.ok(Math.abs(expires - started - 86_400_000) < 5000, rotated.previous_secret_expires_at);
    assert.equal((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json().previous_secret_expires_at, rotated.previous_secret_expires_at);
    // Stored sealed, like the current one.
    const row = await t.ctx.db.selectFrom('webhook_endpoints').select(['secret_enc', 'previous_secret_enc']).where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    for (const sealed of [row.secret_enc, row.previous_secret_enc!]) {
      assert.match(sealed, /^v1\./);
      for (const s of [first, second]) assert.ok(!sealed.includes(s.slice(6)));
    }

    await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((requests) => requests.length === 1);
    const signed = receiver.requests[0]!;
    const signatures = String(signed.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    for (const s of signatures) assert.match(s, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(signed.headers['x-svc-signature'], signed.headers['webhook-signature']);
    assert.ok(verifies(first, signed), 'the previous secret verifies alone');
    assert.ok(verifies(second, signed), 'the new secret verifies alone');
    assert.ok(!verifies(newSecret(), signed), 'another secret does not');

    // A second rotation during the grace period is refused unless forced.
    const refused = await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, { grace_period_seconds: 60 });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().code, 'rotation_in_progress');
    assert.match(refused.json().error, /force/);
    const forced = await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, { force: true, grace_period_seconds: 0 });
    assert.equal(forced.statusCode, 200, forced.body);
    const third: string = forced.json().secret;
    assert.equal(forced.json().endpoint.previous_secret_expires_at, null);

    await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((requests) => requests.length === 2);
    const after = receiver.requests[1]!;
    assert.equal(String(after.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifies(third, after));
    assert.ok(!verifies(second, after) && !verifies(first, after), 'the old secrets stopped signing');

    // A short grace period ends by itself; then a rotation needs no force.
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, { grace_period_seconds: 1 })).statusCode, 200);
    await sleep(1100);
    assert.equal((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json().previous_secret_expires_at, null);
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, {})).statusCode, 200);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('rotation refuses bad input with 400 naming the field, and other accounts\' endpoints with 404', async (t) => {
  const { key, endpoint } = await setup(t, 'https://hooks.example.com/in');
  for (const [body, field] of [[{ grace_period_seconds: -1 }, 'grace_period_seconds'], [{ grace_period_seconds: 8 * 86400 }, 'grace_period_seconds'],
    [{ force: 'yes' }, 'force'], [{ grace: 1 }, 'grace']] as const) {
    const r = await t.api(key, 'POST', `/webhooks/${endpoint.id}/secret/rotate`, body);
    assert.equal(r.statusCode, 400, r.body);
    assert.match(r.json().error, new RegExp(field));
  }
  const other = await createTree(t);
  const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
  assert.equal((await t.api(otherKey, 'POST', `/webhooks/${endpoint.id}/secret/rotate`)).statusCode, 404);
  assert.equal((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json().previous_secret_expires_at, null, 'nothing rotated');
});

eachDatabase('an endpoint failing without a break for WEBHOOK_AUTO_DISABLE_AFTER_S is disabled with its reason; re-sends do not count; is_active=true re-enables it', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 500 }));
  const warnings: { obj: any; msg: string }[] = [];
  const none = () => undefined;
  const log = { debug: none, info: none, error: none, warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
  const w = startWorker({ store: t.ctx.stores.deliveries, commits: t.testDb.database.commits, config: t.config, log });
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const [first] = await deliveries(t, key, endpoint.id);
    await settled(t, key, endpoint.id, first.id, 'failed');
    await sleep(1200);
    // Failing for over a second now, but a re-send's failure does not count toward auto-disable.
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/retry`)).statusCode, 202);
    await until(async () => (await deliveries(t, key, endpoint.id))[0].attempt_count === 4, 5000, 'the re-send');
    await sleep(100);
    let current = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json();
    assert.equal(current.is_active, true);
    assert.equal(current.disabled_reason, null);

    // The next counted failure finds the endpoint failing since the first attempt: disabled.
    await createReview(t, tree.accountId, tree.properties[0]);
    current = await until(async () => {
      const e = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json();
      return e.is_active === false ? e : null;
    }, 5000, 'the endpoint disabled');
    assert.match(current.disabled_reason, /^auto-disabled: every delivery attempt failed for 1 second \(WEBHOOK_AUTO_DISABLE_AFTER_S\); last error: HTTP 500$/);
    assert.deepEqual((await t.api(key, 'GET', '/webhooks')).json().data.map((e: any) => e.disabled_reason), [current.disabled_reason]);
    // The operator hears of it once, in the worker's log.
    const told = warnings.filter((x) => x.obj.setting === 'WEBHOOK_AUTO_DISABLE_AFTER_S');
    assert.equal(told.length, 1);
    assert.equal(told[0]!.obj.endpoint, endpoint.id);
    assert.match(told[0]!.msg, /auto-disabled/);
    const requests = receiver.requests.length;
    await sleep(300);
    assert.equal(receiver.requests.length, requests, 'no attempts while disabled');
    const [second] = await deliveries(t, key, endpoint.id);
    assert.equal(second.status, 'pending');

    // Re-enabled: the reason is cleared, the waiting delivery goes out, and the streak starts over.
    receiver.answer(() => ({ status: 200 }));
    const patched = await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: true });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().is_active, true);
    assert.equal(patched.json().disabled_reason, null);
    await settled(t, key, endpoint.id, second.id, 'delivered');
    receiver.answer(() => ({ status: 500 }));
    await createReview(t, tree.accountId, tree.properties[0]);
    const [third] = await deliveries(t, key, endpoint.id);
    await settled(t, key, endpoint.id, third.id, 'failed');
    assert.equal((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json().is_active, true, 'a fresh failure streak, under a second long');
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_AUTO_DISABLE_AFTER_S: '1' } });

eachDatabase('a 410 Gone pauses the endpoint with that reason', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 410 }));
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const paused = await until(async () => {
      const e = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).json();
      return e.is_active === false ? e : null;
    }, 5000, 'the endpoint paused');
    assert.equal(paused.disabled_reason, 'paused: the endpoint answered 410 Gone');
    const off = await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: false });
    assert.equal(off.json().disabled_reason, null, 'a pause through the API has no reason');
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });
