// Webhook history of every kind the retention tells apart (retention.test.ts, the CLI's purge test).
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, deliveries, until, worker } from './helpers.ts';

const DAY_MS = 86_400_000;
export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/**
 * Two events before any endpoint (no delivery: one made old, one left recent), then three reviews
 * delivered to a receiver and one more queued while the endpoint is paused. Everything is then made
 * 40 days old except: one delivery finished 2 days ago, one failed for good 40 days ago.
 */
export async function history(t: TestApp) {
  const db = t.testDb.database.db;
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const property = tree.properties[0]!;
  await createReview(t, tree.accountId, property);
  const [oldOrphan] = (await db.selectFrom('events').select('id').execute()).map((e) => e.id);
  await createReview(t, tree.accountId, property);
  const recentOrphan = (await db.selectFrom('events').select('id').where('id', '!=', oldOrphan!).executeTakeFirstOrThrow()).id;
  const receiver = await startReceiver();
  const w = worker(t);
  const { endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
  try {
    for (let i = 0; i < 3; i += 1) await createReview(t, tree.accountId, property);
    await until(async () => (await deliveries(t, key, endpoint.id)).filter((d) => d.status === 'delivered').length === 3, 10_000, '3 deliveries');
  } finally {
    await w.stop();
    await receiver.close();
  }
  assert.equal((await t.api(key, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: false })).statusCode, 200);
  await createReview(t, tree.accountId, property);

  const rows = await db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'status']).orderBy('id').execute();
  const [oldDelivered, recentDelivered, oldFailed] = rows.filter((d) => d.status === 'delivered');
  const pending = rows.find((d) => d.status === 'pending')!;
  assert.ok(oldDelivered && recentDelivered && oldFailed && pending);
  await db.updateTable('webhook_deliveries').set({ created_at: daysAgo(40), last_attempt_at: daysAgo(40) }).execute();
  await db.updateTable('webhook_deliveries').set({ next_attempt_at: daysAgo(40) }).where('id', '=', pending.id).execute();
  await db.updateTable('webhook_deliveries').set({ last_attempt_at: daysAgo(2) }).where('id', '=', recentDelivered.id).execute();
  await db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', oldFailed.id).execute();
  await db.updateTable('events').set({ created_at: daysAgo(40) }).where('id', '!=', recentOrphan).execute();
  return { key, endpoint, oldOrphan: oldOrphan!, oldDelivered, recentDelivered, oldFailed, pending };
}
