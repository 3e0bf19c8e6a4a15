// The recorder (src/delivery/recorder.ts): group commit of attempt results through the real
// delivery store of each database: batches of at most 1000, each attempt written once, a failed
// write kept and written again, and drain() for shutdown.
import assert from 'node:assert/strict';
import { outageTracker } from '../../src/db/outage.ts';
import { createRecorder } from '../../src/delivery/recorder.ts';
import type { AttemptRecord, ClaimedDelivery } from '../../src/delivery/store.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Log } from '../../src/lib/log.ts';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { createEndpoint } from '../webhooks/helpers.ts';

/** n pending deliveries of one endpoint, claimed by the store as the worker claims them. */
async function claimed(t: TestApp, n: number): Promise<ClaimedDelivery[]> {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'http://127.0.0.1:9/hook', ['review.received']);
  const now = new Date(Date.now() - 1000).toISOString();
  for (let i = 0; i < n; i += 500) {
    const events = Array.from({ length: Math.min(500, n - i) }, () => newId());
    await t.ctx.db.insertInto('events').values(events.map((id) => ({
      id, account_id: tree.accountId, type: 'review.received', payload: '{}', created_at: now,
    }))).execute();
    await t.ctx.db.insertInto('webhook_deliveries').values(events.map((id) => ({
      id: newId(), account_id: tree.accountId, endpoint_id: endpoint.id, event_id: id, event_type: 'review.received',
      status: 'pending', attempt_count: 0, next_attempt_at: now, created_at: now,
    }))).execute();
  }
  const at = Date.now();
  const deliveries = await t.ctx.stores.deliveries.claim({
    now: new Date(at).toISOString(), firstAttemptCutoff: new Date(at).toISOString(), leaseUntil: new Date(at + 60_000).toISOString(),
    owner: 'recorder-test', limit: n, perEndpoint: n, room: new Map(), excluded: [],
  });
  assert.equal(deliveries.length, n);
  return deliveries;
}

const delivered = (d: ClaimedDelivery): AttemptRecord => {
  const at = new Date().toISOString();
  return {
    deliveryId: d.id, owner: d.owner, attemptId: newId(), attemptedAt: at, statusCode: 200, durationMs: 3, error: null,
    responseBody: 'ok', status: 'delivered', nextAttemptAt: at, pauseEndpointId: null, endpointId: d.endpointId, counts: true,
  };
};

/** A logger that keeps the warnings. */
function warnings(): Log & { messages: string[] } {
  const messages: string[] = [];
  const none = () => undefined;
  return { messages, debug: none, info: none, error: none, warn: (_obj, msg) => { messages.push(msg); } };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function stored(t: TestApp): Promise<{ attempts: number; delivered: number }> {
  const attempts = await t.ctx.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const done = await t.ctx.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'delivered').executeTakeFirstOrThrow();
  return { attempts: Number(attempts.n), delivered: Number(done.n) };
}

eachDatabase('results added at once are written in few, full batches of at most 1000, each attempt once', async (t) => {
  const deliveries = await claimed(t, 2500);
  const batches: number[] = [];
  const quiet = warnings();
  const recorder = createRecorder(t.ctx.stores.deliveries, quiet, outageTracker(quiet, 'recorder test'), (batch) => batches.push(batch.length));
  for (const d of deliveries) recorder.add(delivered(d));
  await until(() => batches.reduce((a, b) => a + b, 0) === 2500, 'every result to be written');
  assert.deepEqual(batches, [1000, 1000, 500]);
  assert.deepEqual(await stored(t), { attempts: 2500, delivered: 2500 });
});

eachDatabase('a write the database refuses keeps its results and writes them on a later try, once', async (t) => {
  const deliveries = await claimed(t, 10);
  const records = deliveries.map(delivered);
  // An attempt row that already holds one of the batch's ids: the batch's insert is refused as a whole.
  await t.ctx.db.insertInto('webhook_attempts').values({
    id: records[4]!.attemptId, delivery_id: deliveries[4]!.id, attempted_at: records[4]!.attemptedAt, status_code: 500,
    duration_ms: 1, error: 'planted', response_body: null,
  }).execute();
  const log = warnings();
  const batches: number[] = [];
  const recorder = createRecorder(t.ctx.stores.deliveries, log, outageTracker(log, 'recorder test'), (batch) => batches.push(batch.length));
  for (const r of records) recorder.add(r);
  await until(() => log.messages.length > 0, 'the refused write');
  assert.match(log.messages[0]!, /recording attempts failed; retrying/);
  assert.deepEqual(batches, []);
  assert.deepEqual(await stored(t), { attempts: 1, delivered: 0 }, 'nothing of the refused batch was written');
  await t.ctx.db.deleteFrom('webhook_attempts').where('error', '=', 'planted').execute();
  await until(() => batches.length > 0, 'the retry');
  assert.deepEqual(batches, [10]);
  assert.deepEqual(await stored(t), { attempts: 10, delivered: 10 });
});

eachDatabase('drain() writes every result added so far without waiting for the flush interval', async (t) => {
  const deliveries = await claimed(t, 30);
  const batches: number[] = [];
  const quiet = warnings();
  const recorder = createRecorder(t.ctx.stores.deliveries, quiet, outageTracker(quiet, 'recorder test'), (batch) => batches.push(batch.length));
  for (const d of deliveries) recorder.add(delivered(d));
  await recorder.drain();
  assert.equal(batches.reduce((a, b) => a + b, 0), 30);
  assert.deepEqual(await stored(t), { attempts: 30, delivered: 30 });
});
