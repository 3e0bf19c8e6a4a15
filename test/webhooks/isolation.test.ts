// Isolation and liveness: a hanging endpoint holds only its own slots, pause/resume, DELETE wins
// over an attempt in flight, and a commit wakes the worker without waiting for the poll.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, deliveries, sleep, until, verified, WEBHOOK_ENV, worker } from './helpers.ts';

eachDatabase('an endpoint that hangs until its time-out holds only its own slots; the others keep flowing', async (t) => {
  const hanging = await startReceiver();
  const healthy = await startReceiver();
  hanging.answer(() => 'stall');
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const stuck = await createEndpoint(t, key, hanging.url, ['review.received'], 'Hangs');
  await createEndpoint(t, key, healthy.url, ['review.received'], 'Healthy');
  for (let i = 0; i < 20; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!);
  const w = worker(t, { concurrency: 8, perEndpoint: 4 });
  try {
    // All 20 reach the healthy receiver while the hanging endpoint's first attempts are still
    // waiting for their 8 s time-out: they held only the hanging endpoint's own 4 slots.
    await healthy.waitFor((r) => r.length === 20, 7000, '20 deliveries to the healthy endpoint');
    assert.equal(hanging.requests.length, 4);
    const stuckDeliveries = await deliveries(t, key, stuck.endpoint.id);
    assert.equal(stuckDeliveries.length, 20);
    assert.ok(stuckDeliveries.every((d) => d.attempt_count === 0), 'no hanging attempt has finished yet');
  } finally {
    hanging.release();
    await w.stop();
    await hanging.close();
    await healthy.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '8000' } });

eachDatabase('is_active=false pauses deliveries (new ones wait, pings too); true sends them', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const { secret, endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
    assert.equal((await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: false })).statusCode, 200);
    await createReview(t, tree.accountId, tree.properties[0]);
    await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
    await sleep(400);
    assert.equal(receiver.requests.length, 0);
    assert.deepEqual((await deliveries(t, key, endpoint.id)).map((d) => d.status), ['pending', 'pending']);
    assert.equal((await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: true })).statusCode, 200);
    await receiver.waitFor((r) => r.length === 2, 3000);
    assert.deepEqual(receiver.requests.map((r) => verified(secret, r).type).sort(), ['ping', 'review.received']);
    const ping = receiver.requests.map((r) => verified(secret, r)).find((e) => e.type === 'ping');
    assert.equal(ping.data.endpoint_id, endpoint.id);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('DELETE removes the endpoint and its deliveries; an attempt in flight does not bring them back', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => 'stall');
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const { endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
    await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((r) => r.length === 1);
    const r = await t.api(key, 'DELETE', `/webhooks/${endpoint.id}`);
    assert.equal(r.statusCode, 200, r.body);
    receiver.release();
    await sleep(400);
    const db = t.ctx.db;
    assert.equal((await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).execute()).length, 0);
    assert.equal((await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).execute()).length, 0);
    assert.equal((await db.selectFrom('webhook_attempts').selectAll().execute()).length, 0);
    assert.equal(receiver.requests.length, 1);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase("DELETE takes the endpoint's attempts with its deliveries, and leaves another endpoint's alone", async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const doomed = await createEndpoint(t, key, receiver.url, ['review.received']);
    const kept = await createEndpoint(t, key, receiver.url, ['review.received']);
    await createReview(t, tree.accountId, tree.properties[0]);
    await createReview(t, tree.accountId, tree.properties[1]);
    const db = t.ctx.db;
    const attemptsOf = (endpointId: string) => db.selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id').select('a.id').where('d.endpoint_id', '=', endpointId).execute();
    await until(async () => (await attemptsOf(doomed.endpoint.id)).length === 2 && (await attemptsOf(kept.endpoint.id)).length === 2);
    const before = await db.selectFrom('webhook_attempts').select('id').execute();
    assert.equal(before.length, 4);

    const doomedDeliveries = await deliveries(t, key, doomed.endpoint.id);
    assert.equal(doomedDeliveries.length, 2);
    assert.equal((await t.api(key, 'DELETE', `/webhooks/${doomed.endpoint.id}`)).statusCode, 200);
    // No attempt is left behind without its delivery, and the other endpoint's are all still there.
    const after = await db.selectFrom('webhook_attempts').select('id').execute();
    assert.deepEqual(after.map((a) => a.id).sort(), (await attemptsOf(kept.endpoint.id)).map((a) => a.id).sort());
    assert.equal(after.length, 2);
    for (const d of doomedDeliveries) assert.equal((await t.admin('GET', `/deliveries/${d.id}`)).statusCode, 404);
    for (const d of await deliveries(t, key, kept.endpoint.id)) {
      assert.equal((await t.admin('GET', `/deliveries/${d.id}`)).json().attempts.length, 1);
    }
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('a commit wakes the worker at once: no wait for WEBHOOK_POLL_MS', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    await createEndpoint(t, key, receiver.url, ['review.received']);
    await sleep(100);
    const started = performance.now();
    await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((r) => r.length === 1, 5000);
    const latency = receiver.requests[0]!.at - started;
    assert.ok(latency < 3000, `arrived ${latency} ms after the request, with a 60 s poll`);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_POLL_MS: '60000' } });

eachDatabase('stop() finishes the attempts in flight and records them', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => 'stall');
  const w = worker(t);
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
  try {
    await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((r) => r.length === 1);
    const stopping = w.stop();
    await sleep(100);
    receiver.release();
    await stopping;
    const [delivery] = await deliveries(t, key, endpoint.id);
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempt_count, 1);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('a slow endpoint is claimed only as far ahead as it can start within its leases', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 200, body: 'ok', delayMs: 300 }));
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
  // Time-out 1000 ms, attempts of about 300 ms: 3 waves of 2 slots, so at most 6 in hand (leased).
  const w = worker(t, { concurrency: 8, perEndpoint: 2 });
  try {
    for (let i = 0; i < 2; i++) await createReview(t, tree.accountId, tree.properties[0]);
    // Their answers teach the worker how long this endpoint's attempts take.
    await until(async () => (await deliveries(t, key, endpoint.id)).filter((d) => d.status === 'delivered').length === 2, 5000, 'the first two answers');
    for (let i = 0; i < 40; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!);
    let mostLeased = 0;
    for (let look = 0; look < 8; look++) {
      await sleep(150);
      const leased = await t.testDb.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('endpoint_id', '=', endpoint.id).where('lease_owner', 'is not', null).executeTakeFirstOrThrow();
      mostLeased = Math.max(mostLeased, Number(leased.n));
    }
    // 6 in hand, and results not yet written (a write every 30 ms) at most a wave more.
    assert.ok(mostLeased > 0 && mostLeased <= 8, `at most 8 of 40 leased at once, saw ${mostLeased}`);
    assert.ok(receiver.requests.length < 42, 'still delivering');
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '1000' } });
