// Retention of webhook history (WEBHOOK_RETENTION_DAYS): finished deliveries whose last attempt is
// older than the retention go with their attempts, and so do older events no delivery refers to;
// pending deliveries (a paused endpoint's) and recently finished ones stay with their events. The
// worker's pass runs once a day across every worker.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import * as deliveriesEventReference from '../../src/db/migrations/2026-11-28T1900-deliveries-event-reference.ts';
import { startRetentionWorker } from '../../src/process/retention-worker.ts';
import { purgeWebhookHistory, retentionCutoff } from '../../src/modules/webhooks/retention.ts';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { startReceiver } from '../support/receiver.ts';
import { createKey, createTree } from '../support/factories.ts';
import { createEndpoint, deliveries, until, WEBHOOK_ENV, worker } from './helpers.ts';
import { daysAgo, history } from './history.ts';

const attemptsOf = async (t: TestApp, deliveryId: string) =>
  Number((await t.testDb.database.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll().as('n'))
    .where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow()).n);
const eventIds = async (t: TestApp) => new Set((await t.testDb.database.db.selectFrom('events').select('id').execute()).map((e) => e.id));

eachDatabase('the retention deletes finished deliveries older than it with their attempts, and older events no delivery needs', async (t) => {
  const h = await history(t);
  const before = await eventIds(t);
  assert.equal(before.size, 6);
  assert.equal(await attemptsOf(t, h.oldDelivered.id), 1);

  // Batches of one: every step of the walk is exercised.
  const purged = await purgeWebhookHistory(t.testDb.database.db, retentionCutoff(new Date(), 30), 1);
  assert.deepEqual(purged, { deliveries: 2, events: 3 });

  const listed = (await deliveries(t, h.key, h.endpoint.id)).map((d) => d.id).sort();
  assert.deepEqual(listed, [h.recentDelivered.id, h.pending.id].sort());
  for (const gone of [h.oldDelivered, h.oldFailed]) {
    assert.equal((await t.admin('GET', `/deliveries/${gone.id}`)).statusCode, 404);
    assert.equal(await attemptsOf(t, gone.id), 0);
  }
  assert.equal(await attemptsOf(t, h.recentDelivered.id), 1);
  const after = await eventIds(t);
  // Kept: the events of the two deliveries that stay, and the recent event with no delivery.
  assert.equal(after.size, 3);
  for (const kept of [h.recentDelivered.event_id, h.pending.event_id]) assert.ok(after.has(kept));
  for (const gone of [h.oldOrphan, h.oldDelivered.event_id, h.oldFailed.event_id]) assert.ok(!after.has(gone));

  // The paused endpoint's delivery, however old, is still delivered once it resumes.
  assert.deepEqual(await purgeWebhookHistory(t.testDb.database.db, retentionCutoff(new Date(), 30)), { deliveries: 0, events: 0 });
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    assert.equal((await t.api(h.key, 'PATCH', `/webhooks/${h.endpoint.id}`, { url: receiver.url, is_active: true })).statusCode, 200);
    await until(async () => (await deliveries(t, h.key, h.endpoint.id)).find((d) => d.id === h.pending.id)?.status === 'delivered', 10_000, 'the queued delivery');
    assert.equal(receiver.requests.length, 1);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });

eachDatabase('the worker\'s retention pass runs once a day across workers, and not at all with WEBHOOK_RETENTION_DAYS=0', async (t) => {
  const h = await history(t);
  const db = t.testDb.database.db;
  const pass = async (days: number) => startRetentionWorker({ db, log: t.ctx.log }, { webhookRetentionDays: days }).stop();
  const listed = async () => (await deliveries(t, h.key, h.endpoint.id)).map((d) => d.id).sort();

  await pass(0);
  assert.equal((await listed()).length, 4);

  // stop() right after start lets the loop finish its first look: the day's pass, claimed by this worker.
  await pass(30);
  assert.deepEqual(await listed(), [h.recentDelivered.id, h.pending.id].sort());

  // Another worker the same day finds the pass taken, even with more history gone out of retention.
  await db.updateTable('webhook_deliveries').set({ last_attempt_at: daysAgo(40) }).where('id', '=', h.recentDelivered.id).execute();
  await pass(30);
  assert.deepEqual(await listed(), [h.recentDelivered.id, h.pending.id].sort());

  // A day later the next pass runs.
  await sql`update insight_runs set last_run_at = ${daysAgo(1.01)} where name = 'webhook-retention'`.execute(db);
  await pass(30);
  assert.deepEqual(await listed(), [h.pending.id]);
}, { env: WEBHOOK_ENV });

eachDatabase('the 2026-11-28 migration of the deliveries\' event reference goes down and up again', async (t) => {
  const db = t.testDb.database.db;
  const orphan = () => sql`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at)
    select 'orphan', e.account_id, e.id, 'no-such-event', 'ping', 'pending', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' from webhook_endpoints e`.execute(db);
  const tree = await createTree(t);
  await createEndpoint(t, await createKey(t, tree.accountId, tree.root, ['webhooks:manage']), 'https://hooks.example.com/x', ['review.received']);
  await deliveriesEventReference.down(db);
  // Down: the foreign key holds again (SQLite's was never dropped: only its index goes).
  if (t.dialect === 'postgres') await assert.rejects(orphan(), /foreign key/);
  await deliveriesEventReference.up(db);
  if (t.dialect === 'postgres') {
    await orphan(); // up: the reference is the writers' to keep, not a key's
    await sql`delete from webhook_deliveries where id = 'orphan'`.execute(db);
  } else {
    const plan = await sql<{ detail: string }>`explain query plan select 1 from webhook_deliveries where event_id = 'x'`.execute(db);
    assert.match(plan.rows.map((r) => r.detail).join(' '), /webhook_deliveries_event/);
  }
});
