// `repute worker` as real processes: two workers on one PostgreSQL deliver 20,000 events exactly
// once; a worker killed with SIGKILL mid-delivery has everything pending sent after a restart
// (both databases); a separate worker is woken by NOTIFY when the server commits (PostgreSQL).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import { cliDatabaseUrl, cliEnv } from '../cli/run.ts';
import { createTestApp, dialects, type TestApp } from '../support/app.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { type ReputeProcess, spawnRepute, stopRepute } from '../support/repute-processes.ts';
import { createEndpoint, until, verified } from './helpers.ts';

/** A `repute worker` on the test database, with info logs, a quick poll and the loopback receiver admitted. */
function spawnWorker(t: TestApp, env: Record<string, string>): ReputeProcess {
  return spawnRepute(['worker'], cliEnv(cliDatabaseUrl(t.testDb), { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_POLL_MS: '100', ...env }));
}

const logged = (w: ReputeProcess, msg: string) => w.lines.map((l) => { try { return JSON.parse(l); } catch { return null; } }).find((l) => l?.msg === msg);

/** Queues n review.received events for the endpoint straight into the outbox tables. */
async function seed(db: Kysely<DB>, accountId: string, endpointId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  const now = new Date().toISOString();
  for (let i = 0; i < n; i += 1000) {
    const events = [];
    const deliveries = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const id = newId();
      ids.push(id);
      const body = { id, type: 'review.received', timestamp: now, account_id: accountId, data: { review: { id: newId(), n: j } } };
      events.push({ id, account_id: accountId, type: 'review.received', payload: JSON.stringify(body), created_at: now });
      deliveries.push({
        id: newId(), account_id: accountId, endpoint_id: endpointId, event_id: id, event_type: 'review.received',
        status: 'pending', attempt_count: 0, next_attempt_at: now, created_at: now,
      });
    }
    await db.insertInto('events').values(events).execute();
    await db.insertInto('webhook_deliveries').values(deliveries).execute();
  }
  return ids;
}

async function statusCounts(db: Kysely<DB>): Promise<Record<string, number>> {
  const rows = await db.selectFrom('webhook_deliveries').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}


if (dialects.includes('postgres')) {
  test('two `repute worker` processes on one PostgreSQL deliver 20,000 events exactly once', { timeout: 240_000 }, async () => {
    const t = await createTestApp('postgres');
    const receiver = await startReceiver();
    const workers: ReputeProcess[] = [];
    try {
      const tree = await createTree(t);
      const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
      const { secret, endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
      workers.push(spawnWorker(t, {}), spawnWorker(t, {}));
      await until(async () => workers.every((w) => logged(w, 'webhook worker started')) || null, 60_000, 'both workers to start');
      // One transaction: both workers find the whole queue at once.
      const ids = await t.ctx.db.transaction().execute((trx) => seed(trx, tree.accountId, endpoint.id, 20_000));
      const started = Date.now();
      // Well under a minute on an idle machine; the margin is for a machine shared with other work.
      await receiver.waitFor((r) => r.length >= 20_000, 150_000, '20,000 deliveries');
      await until(async () => (await statusCounts(t.ctx.db)).delivered === 20_000 || null, 30_000, 'every row delivered');
      const seconds = (Date.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 300));

      assert.equal(receiver.requests.length, 20_000, 'no event arrived twice');
      const received = new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
      assert.equal(received.size, 20_000);
      assert.deepEqual([...received].sort(), [...ids].sort());
      for (const r of receiver.requests.slice(0, 50)) verified(secret, r);
      assert.deepEqual(await statusCounts(t.ctx.db), { delivered: 20_000 });
      const attempts = await t.ctx.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(attempts.n), 20_000);

      // Both processes took part, and each exits cleanly on SIGTERM with its tally.
      const tallies = [];
      for (const w of workers) {
        assert.equal(await stopRepute(w), 0, w.lines.join('\n'));
        tallies.push(logged(w, 'webhook worker stopped')?.delivered);
      }
      const cpu = workers.map((w) => logged(w, 'webhook worker stopped')?.cpuSeconds);
      assert.equal(tallies[0] + tallies[1], 20_000, JSON.stringify(tallies));
      assert.ok(tallies.every((n) => n > 0), `each worker delivered some: ${JSON.stringify(tallies)}`);
      console.log(`20,000 deliveries by two workers in ${seconds.toFixed(1)} s (${tallies.join(' + ')}; worker CPU ${cpu.join(' + ')} s)`);
    } finally {
      for (const w of workers) await stopRepute(w, 'SIGKILL');
      await receiver.close();
      await t.close();
    }
  });

  test('a `repute worker` with a long poll is woken by NOTIFY when a server without a worker commits', { timeout: 90_000 }, async () => {
    const t = await createTestApp('postgres');
    const receiver = await startReceiver();
    const w = spawnWorker(t, { WEBHOOK_POLL_MS: '60000' });
    try {
      const tree = await createTree(t);
      const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
      await createEndpoint(t, key, receiver.url, ['review.received']);
      await until(async () => logged(w, 'listening for committed events') ?? null, 60_000, 'the worker to listen');
      const started = performance.now();
      await createReview(t, tree.accountId, tree.properties[0]);
      await receiver.waitFor((r) => r.length === 1, 5000);
      const latency = receiver.requests[0]!.at - started;
      assert.ok(latency < 5000, `arrived after ${latency} ms with a 60 s poll`);
    } finally {
      await stopRepute(w, 'SIGKILL');
      await receiver.close();
      await t.close();
    }
  });
}

for (const dialect of dialects) {
  test(`a worker killed with SIGKILL mid-delivery has every pending delivery sent after a restart [${dialect}]`, { timeout: 180_000 }, async () => {
    const t = await createTestApp(dialect);
    const receiver = await startReceiver();
    receiver.answer(() => 'stall');
    const env = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_SCHEDULE_S: '0,0.05,0.1,0.2,0.5' };
    let w: ReputeProcess | null = null;
    try {
      const tree = await createTree(t);
      const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
      const { secret, endpoint } = await createEndpoint(t, key, receiver.url, ['review.received']);
      const ids = await seed(t.ctx.db, tree.accountId, endpoint.id, 300);

      w = spawnWorker(t, env);
      await receiver.waitFor((r) => r.length >= 16, 60_000, 'attempts in flight');
      await stopRepute(w, 'SIGKILL');
      const inFlight = new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
      assert.equal((await statusCounts(t.ctx.db)).pending, 300, 'nothing was recorded as done');

      receiver.release();
      w = spawnWorker(t, env);
      await until(async () => (await statusCounts(t.ctx.db)).delivered === 300 || null, 90_000, 'every delivery after the restart');
      const seen = new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
      assert.deepEqual([...seen].sort(), [...ids].sort());
      // The deliveries the killed worker had in flight were sent again after their lease ran out.
      for (const id of inFlight) assert.ok(receiver.requests.filter((r) => r.headers['webhook-id'] === id).length >= 2, id);
      for (const r of receiver.requests.slice(-20)) verified(secret, r);
      assert.deepEqual(await statusCounts(t.ctx.db), { delivered: 300 });
      assert.equal(await stopRepute(w), 0);
    } finally {
      if (w) await stopRepute(w, 'SIGKILL');
      receiver.release();
      await receiver.close();
      await t.close();
    }
  });
}

