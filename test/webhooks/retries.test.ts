// Failed attempts and what follows: retries on WEBHOOK_RETRY_SCHEDULE_S with the same webhook-id and
// a fresh timestamp, the final failure, the operator's re-send, redirects, 410, Retry-After, time-outs,
// and every attempt kept (status, duration, error, body cut to 4 KiB).
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import type { TestApp } from '../support/app.ts';
import { createEndpoint, deliveries, sleep, until, verified, WEBHOOK_ENV, worker } from './helpers.ts';

async function setup(t: TestApp, url: string, events = ['review.received']) {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const created = await createEndpoint(t, key, url, events);
  return { tree, key, ...created };
}

async function settled(t: TestApp, key: string, endpointId: string, status: string, timeoutMs = 10_000): Promise<any> {
  return until(async () => {
    const [latest] = await deliveries(t, key, endpointId);
    return latest?.status === status ? latest : null;
  }, timeoutMs, `a ${status} delivery`);
}

const detail = async (t: TestApp, id: string) => {
  const r = await t.admin('GET', `/deliveries/${id}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
};

eachDatabase('failed attempts are retried with the same webhook-id and body and a fresh signed timestamp', async (t) => {
  const receiver = await startReceiver();
  receiver.answer((_request, i) => (i < 2 ? { status: 500, body: 'boom' } : { status: 204 }));
  const w = worker(t);
  try {
    const { tree, key, secret, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const delivery = await settled(t, key, endpoint.id, 'delivered');
    assert.equal(delivery.attempt_count, 3);
    assert.equal(delivery.last_status_code, 204);
    assert.equal(receiver.requests.length, 3);
    const [first, second, third] = receiver.requests;
    for (const r of receiver.requests) verified(secret, r);
    assert.equal(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size, 1);
    assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1);
    // Schedule 0, 0.05, 0.1 s: each delay at least its entry (the jitter only lengthens it).
    assert.ok(second!.at - first!.at >= 50, `second attempt after ${second!.at - first!.at} ms`);
    assert.ok(third!.at - second!.at >= 100, `third attempt after ${third!.at - second!.at} ms`);

    const { attempts } = await detail(t, delivery.id);
    assert.deepEqual(attempts.map((a: any) => a.status_code), [500, 500, 204]);
    assert.deepEqual(attempts.map((a: any) => a.response_body), ['boom', 'boom', '']);
    assert.equal(attempts[0].error, 'HTTP 500');
    assert.equal(attempts[2].error, null);
    for (const a of attempts) assert.ok(Number.isInteger(a.duration_ms) && a.duration_ms >= 0);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('each attempt signs its own webhook-timestamp', async (t) => {
  const receiver = await startReceiver();
  receiver.answer((_request, i) => (i === 0 ? { status: 503 } : { status: 200 }));
  const w = worker(t);
  try {
    const { tree, key, secret, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    await settled(t, key, endpoint.id, 'delivered');
    const [first, second] = receiver.requests;
    verified(secret, first!);
    verified(secret, second!);
    assert.ok(Number(second!.headers['webhook-timestamp']) > Number(first!.headers['webhook-timestamp']));
    assert.notEqual(first!.headers['webhook-signature'], second!.headers['webhook-signature']);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_S: '0,1.5' } });

eachDatabase('after the last scheduled attempt the delivery fails; the operator re-sends it once, recorded like the others', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 500, body: 'x'.repeat(10_000) }));
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const failed = await settled(t, key, endpoint.id, 'failed');
    assert.equal(failed.attempt_count, 3);
    assert.equal(failed.last_status_code, 500);
    await sleep(300);
    assert.equal(receiver.requests.length, 3, 'no attempt after the schedule ran out');
    const before = await detail(t, failed.id);
    assert.equal(before.attempts.length, 3);
    assert.equal(before.attempts[0].response_body.length, 4096);
    assert.equal(before.next_attempt_at, null);

    const listed = await t.admin('GET', `/accounts/${tree.accountId}/deliveries?status=failed`);
    assert.deepEqual(listed.json().data.map((d: any) => d.id), [failed.id]);

    // One more attempt, still failing: failed again with 4 attempts, no further retries.
    const retry = await t.admin('POST', `/deliveries/${failed.id}/retry`);
    assert.equal(retry.statusCode, 202, retry.body);
    assert.equal(retry.json().status, 'pending');
    await until(async () => (await detail(t, failed.id)).attempt_count === 4 || null, 5000, 'the re-sent attempt');
    const again = await settled(t, key, endpoint.id, 'failed');
    assert.equal(again.attempt_count, 4);
    await sleep(300);
    assert.equal(receiver.requests.length, 4);

    // Re-sent to a receiver that is back: delivered.
    receiver.answer(() => ({ status: 200 }));
    assert.equal((await t.admin('POST', `/deliveries/${failed.id}/retry`)).statusCode, 202);
    const delivered = await settled(t, key, endpoint.id, 'delivered');
    assert.equal(delivered.attempt_count, 5);
    assert.equal((await detail(t, failed.id)).attempts.length, 5);
    assert.equal(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size, 1);

    // Only failed deliveries can be re-sent; unknown ids answer 404.
    const notFailed = await t.admin('POST', `/deliveries/${failed.id}/retry`);
    assert.equal(notFailed.statusCode, 409);
    assert.match(notFailed.json().error, /delivered/);
    assert.equal((await t.admin('POST', '/deliveries/00000000-0000-7000-8000-000000000000/retry')).statusCode, 404);
    assert.equal((await t.admin('POST', '/deliveries/nope/retry')).statusCode, 404);
    assert.equal((await t.admin('GET', '/deliveries/nope')).statusCode, 404);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('an operator\'s retry is one attempt, even with steps of the schedule left (a delivery failed by a re-send)', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const delivered = await settled(t, key, endpoint.id, 'delivered');
    // The receiver breaks; a re-send through the API fails after its one attempt, two of five made.
    receiver.answer(() => ({ status: 500 }));
    assert.equal((await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${delivered.id}/retry`)).statusCode, 202);
    await until(async () => (await detail(t, delivered.id)).status === 'failed' || null, 5000, 'the re-send');
    assert.equal((await detail(t, delivered.id)).attempt_count, 2);

    assert.equal((await t.admin('POST', `/deliveries/${delivered.id}/retry`)).statusCode, 202);
    await until(async () => (await detail(t, delivered.id)).attempt_count === 3 || null, 5000, 'the operator\'s attempt');
    // Three steps of the schedule are left, 50 ms apart: none of them is taken.
    await sleep(400);
    const after = await detail(t, delivered.id);
    assert.equal(after.status, 'failed');
    assert.equal(after.attempt_count, 3);
    assert.equal(receiver.requests.length, 3);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_S: '0,0.05,0.05,0.05,0.05' } });

eachDatabase('redirects are not followed: a 3xx is a failed attempt', async (t) => {
  const receiver = await startReceiver();
  receiver.answer((r) => (r.path === '/moved' ? { status: 200 } : { status: 307, headers: { location: '/moved' } }));
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, `${receiver.url}/hook`);
    await createReview(t, tree.accountId, tree.properties[0]);
    const failed = await settled(t, key, endpoint.id, 'failed');
    assert.equal(failed.last_status_code, 307);
    assert.deepEqual(receiver.requests.map((r) => r.path), ['/hook', '/hook', '/hook']);
    assert.match((await detail(t, failed.id)).attempts[0].error, /redirect/);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('410 Gone pauses the endpoint; its deliveries wait and go out when it is resumed', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => ({ status: 410 }));
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    await until(async () => (await t.api(key, 'GET', '/webhooks')).json().data[0].is_active === false || null, 5000, 'the pause');
    await createReview(t, tree.accountId, tree.properties[1]);
    await sleep(400);
    assert.equal(receiver.requests.length, 1, 'nothing goes to a paused endpoint');
    receiver.answer(() => ({ status: 200 }));
    assert.equal((await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: true })).statusCode, 200);
    await until(async () => {
      const list = await deliveries(t, key, endpoint.id);
      return list.length === 2 && list.every((d) => d.status === 'delivered') ? list : null;
    }, 5000, 'both deliveries after the resume');
    assert.equal(receiver.requests.length, 3);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('Retry-After of a 429 or 503 is honoured, within bounds', async (t) => {
  const receiver = await startReceiver();
  receiver.answer((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    await settled(t, key, endpoint.id, 'delivered');
    const gap = receiver.requests[1]!.at - receiver.requests[0]!.at;
    assert.ok(gap >= 950, `the second attempt came ${gap} ms after a Retry-After of 1 s`);

    // An absurd Retry-After is capped at an hour.
    receiver.answer(() => ({ status: 503, headers: { 'retry-after': '999999999' } }));
    await createReview(t, tree.accountId, tree.properties[1]);
    await receiver.waitFor((r) => r.length === 3);
    const [latest] = await until(async () => {
      const list = await deliveries(t, key, endpoint.id);
      return list[0]?.attempt_count === 1 ? list : null;
    }, 5000, 'the 503 to be recorded');
    const next = Date.parse((await detail(t, latest.id)).next_attempt_at);
    assert.ok(next > Date.now() + 3500_000 && next <= Date.now() + 3600_000, `next attempt at ${new Date(next).toISOString()}`);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('an attempt that outlasts WEBHOOK_TIMEOUT_MS fails as a time-out', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => 'stall');
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    const failed = await settled(t, key, endpoint.id, 'failed', 10_000);
    assert.equal(failed.last_status_code, null);
    const { attempts } = await detail(t, failed.id);
    assert.equal(attempts.length, 3);
    for (const a of attempts) {
      assert.equal(a.error, 'timed out after 300 ms');
      assert.ok(a.duration_ms >= 290 && a.duration_ms < 3000, `duration ${a.duration_ms}`);
    }
  } finally {
    await w.stop();
    receiver.release();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '300' } });

eachDatabase('at most 64 KiB of an answer is read, and 4 KiB kept', async (t) => {
  const receiver = await startReceiver();
  receiver.answer(() => 'endless');
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    await createReview(t, tree.accountId, tree.properties[0]);
    // Delivered at all: reading the endless answer to its end would have timed out.
    const delivered = await settled(t, key, endpoint.id, 'delivered', 8000);
    const { attempts } = await detail(t, delivered.id);
    assert.equal(attempts[0].response_body, 'x'.repeat(4096));
    await sleep(100);
    // What the receiver managed to write is bounded by socket buffers, not by the endless body.
    assert.ok(receiver.endlessBytes < 8 * 1024 * 1024, `${receiver.endlessBytes} bytes written`);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '10000' } });

eachDatabase('the first entry of the schedule delays the first attempt', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const { tree, key, endpoint } = await setup(t, receiver.url);
    const started = performance.now();
    await createReview(t, tree.accountId, tree.properties[0]);
    await settled(t, key, endpoint.id, 'delivered');
    const waited = receiver.requests[0]!.at - started;
    assert.ok(waited >= 580, `first attempt after ${waited} ms, schedule starts at 0.6 s`);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_S: '0.6,0.05' } });
