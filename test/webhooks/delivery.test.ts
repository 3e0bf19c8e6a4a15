// Delivery end to end: a real receiver on 127.0.0.1, the worker in process, and every delivery
// verified with the standardwebhooks library exactly as a receiver would.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, deliveries, EVENTS, until, verified, WEBHOOK_ENV, worker } from './helpers.ts';

const options = { env: WEBHOOK_ENV };

eachDatabase('a new review is delivered as a signed Standard Webhooks request that the library verifies', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.properties[0], ['webhooks:manage']);
    const { secret, endpoint } = await createEndpoint(t, key, `${receiver.url}/hooks?source=repute`);
    const review = await createReview(t, tree.accountId, tree.properties[1], { rating: 5, text: 'Lovely stay' });
    await receiver.waitFor((r) => r.length === 1);
    const request = receiver.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/hooks?source=repute');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers.host, `127.0.0.1:${receiver.port}`);
    const payload = verified(secret, request);
    assert.deepEqual(Object.keys(payload).sort(), ['account_id', 'data', 'id', 'timestamp', 'type']);
    assert.equal(payload.type, 'review.received');
    assert.equal(payload.account_id, tree.accountId);
    assert.equal(payload.id, request.headers['webhook-id']);
    assert.deepEqual(payload.data.review, review);
    const event = await t.ctx.db.selectFrom('events').select(['id', 'payload']).where('id', '=', payload.id).executeTakeFirstOrThrow();
    assert.equal(request.body, event.payload);
    assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 5);

    const [delivery] = await until(async () => {
      const list = await deliveries(t, key, endpoint.id);
      return list[0]?.status === 'delivered' ? list : null;
    }, 5000, 'the delivery to be recorded');
    assert.equal(delivery.event_type, 'review.received');
    assert.equal(delivery.attempt_count, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.ok(delivery.last_attempt_at);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, options);

eachDatabase('an event fans out to every active subscribed endpoint of its account, and to no other', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const other = await createTree(t, { name: 'Other' });
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const otherKey = await createKey(t, other.accountId, other.root, ['webhooks:manage']);
    const a = await createEndpoint(t, key, `${receiver.url}/a`, ['review.received']);
    const b = await createEndpoint(t, key, `${receiver.url}/b`, EVENTS);
    await createEndpoint(t, key, `${receiver.url}/c`, ['review.replied']);
    await createEndpoint(t, otherKey, `${receiver.url}/other`, EVENTS);
    await createReview(t, tree.accountId, tree.properties[2]);
    await receiver.waitFor((r) => r.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(receiver.requests.map((r) => r.path).sort(), ['/a', '/b']);
    const byPath = new Map(receiver.requests.map((r) => [r.path, r]));
    assert.equal(verified(a.secret, byPath.get('/a')!).type, 'review.received');
    assert.equal(verified(b.secret, byPath.get('/b')!).type, 'review.received');
    // Each endpoint's secret signs only its own deliveries.
    assert.throws(() => verified(a.secret, byPath.get('/b')!));
    assert.equal(byPath.get('/a')!.headers['webhook-id'], byPath.get('/b')!.headers['webhook-id']);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, options);
