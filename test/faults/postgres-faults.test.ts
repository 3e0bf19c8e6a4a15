// Database faults against real processes (`repute serve` with its inline worker, and a separate
// `repute worker`) on PostgreSQL: backends terminated under mixed load, a database that cannot be
// reached for a few seconds, and one closed or black-holed from the start. No process exits, requests
// in trouble answer 503 with Retry-After, nothing answered 2xx or queued is lost, and everything
// recovers by itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { connect } from '../../src/db/connect.ts';
import { createContext } from '../../src/context.ts';
import { buildApp } from '../../src/app.ts';
import { ADMIN_TOKEN, createTestApp, dialects, SECRET_KEY, type TestApp } from '../support/app.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { freePort } from '../support/ports.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { createEndpoint, sleep, until } from '../webhooks/helpers.ts';
import { runFaultLoad } from '../support/fault-load.ts';
import {
  assertUnavailable, faultEnv, guestPush, listReviews, type ReputeProcess, type ServeAndWorker, startServeAndWorker,
} from '../support/repute-processes.ts';

interface Fixture {
  t: TestApp;
  accountId: string;
  receiver: Receiver;
  readKey: string;
  pushKey: string;
  property: string;
  endpointId: string;
  /** Stops the processes (when started), the receiver and the test app. */
  close(running: ServeAndWorker | null): Promise<void>;
}

async function fixture(): Promise<Fixture> {
  const t = await createTestApp('postgres');
  const receiver = await startReceiver();
  const tree = await createTree(t);
  const readKey = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const pushKey = await createKey(t, tree.accountId, tree.root, ['guests:write']);
  const hookKey = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, hookKey, receiver.url, ['guest.created', 'review.received']);
  for (let i = 0; i < 5; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!);
  return {
    t, accountId: tree.accountId, receiver, readKey, pushKey, property: tree.properties[0], endpointId: endpoint.id,
    close: async (running) => {
      await running?.stop();
      await receiver.close();
      await t.close();
    },
  };
}

async function queuedEventIds(t: TestApp, endpointId: string): Promise<string[]> {
  const rows = await t.ctx.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', endpointId).execute();
  return rows.map((r) => r.event_id);
}

/** Every delivery of the endpoint is delivered and every queued event arrived at the receiver. */
async function assertEverythingDelivered(f: Fixture, timeoutMs: number): Promise<number> {
  await until(async () => {
    const pending = await f.t.ctx.db.selectFrom('webhook_deliveries').select('id')
      .where('endpoint_id', '=', f.endpointId).where('status', '!=', 'delivered').executeTakeFirst();
    return pending === undefined;
  }, timeoutMs, 'every delivery to be delivered');
  const queued = await queuedEventIds(f.t, f.endpointId);
  const received = new Set(f.receiver.requests.map((r) => String(r.headers['webhook-id'])));
  const missing = queued.filter((id) => !received.has(id));
  assert.deepEqual(missing, [], `${missing.length} of ${queued.length} queued events never arrived`);
  return queued.length;
}

if (dialects.includes('postgres')) {
  test('terminating Repute\'s PostgreSQL backends every second under load: no process exits, nothing is lost, 503s only', { timeout: 180_000 }, async () => {
    const f = await fixture();
    const appName = `repute_fault_${f.t.testDb.schema}`;
    const admin = new pg.Client({ connectionString: f.t.testDb.url });
    await admin.connect();
    let running: ServeAndWorker | null = null;
    try {
      running = await startServeAndWorker((extra) => faultEnv(f.t.testDb, appName, extra));
      const { base } = running;
      const processes = [running.serve, running.worker];

      // Mixed load for a few seconds while every backend of the two processes is terminated each second.
      const { answers, pushed, terminated } = await runFaultLoad({
        base, readKey: f.readKey, pushKey: f.pushKey, propertyId: f.property, admin, applicationName: appName, seconds: 6, everyMs: 1000, connections: 4,
      });

      // No process exited.
      for (const p of processes) assert.equal(p.exitCode(), null, `a process exited:\n${p.lines.slice(-20).join('\n')}`);
      assert.ok(terminated >= 5, `the faults terminated ${terminated} backends`);
      assert.ok(pushed.length >= 10, `only ${pushed.length} pushes succeeded`);

      // Every non-2xx answer was a 503 with Retry-After and the error envelope.
      const failed = answers.filter((a) => a.status < 200 || a.status >= 300);
      for (const a of failed) assertUnavailable(a);

      // Every push answered 2xx is in the database.
      const stored = await f.t.ctx.db.selectFrom('guests').select('email').where('email', 'in', pushed).execute();
      assert.equal(stored.length, pushed.length, 'a push answered 2xx is missing from the database');

      // Every event queued (the guest.created of each new guest, the reviews of the fixture) arrives.
      const events = await assertEverythingDelivered(f, 60_000);
      assert.ok(events >= pushed.length, `${events} events for ${pushed.length} new guests`);

      // After the faults, requests succeed again.
      for (let i = 0; i < 10; i++) {
        assert.equal((await listReviews(base, f.readKey)).status, 200);
        assert.equal((await guestPush(base, f.pushKey, f.property, `after-${process.pid}-${i}@example.com`)).status, 201);
      }
      for (const p of processes) assert.equal(p.exitCode(), null, p.lines.slice(-20).join('\n'));
      console.log(`${answers.length} requests, ${failed.length} answered 503, ${terminated} backends terminated, ${pushed.length} pushes stored, ${events} events delivered`);
    } finally {
      await admin.end();
      await f.close(running);
    }
  });

  test('PostgreSQL unreachable for 3 s: /readyz and the API answer 503, workers pause once and resume, queued events go out', { timeout: 180_000 }, async () => {
    const f = await fixture();
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(f.t.testDb.url).port || 5432) });
    let running: ServeAndWorker | null = null;
    try {
      const url = new URL(f.t.testDb.url);
      url.port = String(proxy.port);
      running = await startServeAndWorker((extra) => faultEnv(f.t.testDb, 'repute', extra, url.toString()));
      const { base, serve, worker } = running;
      const processes = [serve, worker];

      proxy.mode('refuse');
      const downAt = Date.now();
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 503);
      assert.ok(ready.headers.get('retry-after'), 'readyz carries Retry-After');
      assertUnavailable(await listReviews(base, f.readKey));
      assertUnavailable(await guestPush(base, f.pushKey, f.property, `down-${process.pid}@example.com`));
      // Events committed meanwhile (by a process the outage does not reach) wait for the workers.
      for (let i = 0; i < 3; i++) await createReview(f.t, f.accountId, f.property);
      await sleep(3000 - (Date.now() - downAt));
      for (const p of processes) assert.equal(p.exitCode(), null, p.lines.slice(-20).join('\n'));

      proxy.mode('forward');
      const upAt = Date.now();
      await until(async () => (await fetch(`${base}/readyz`)).status === 200, 10_000, 'readyz to pass again');
      await until(async () => (await listReviews(base, f.readKey)).status === 200, 10_000, 'the API to answer again');
      const recoveredMs = Date.now() - upAt;
      assert.ok(recoveredMs < 5000, `recovered after ${recoveredMs} ms`);
      assert.equal((await guestPush(base, f.pushKey, f.property, `up-${process.pid}@example.com`)).status, 201);
      await assertEverythingDelivered(f, 30_000);

      // Each worker said once that it paused and once that it resumed: not a line per poll.
      const count = (p: ReputeProcess, text: string) => p.lines.filter((l) => l.includes(text)).length;
      for (const p of [serve, worker]) {
        await until(async () => count(p, 'webhook worker resumed') > 0, 5000, `the worker to resume:\n${p.lines.slice(-10).join('\n')}`);
        assert.equal(count(p, 'webhook worker paused'), 1, p.lines.join('\n'));
        assert.equal(count(p, 'webhook worker resumed'), 1);
        // The invitations worker too: a pass that asked the database nothing said it answered again (a line a second).
        assert.ok(count(p, 'invitations worker paused') <= 1, p.lines.filter((l) => l.includes('invitations worker')).join('\n'));
        assert.ok(count(p, 'invitations worker resumed') <= 1);
        assert.equal(p.exitCode(), null);
      }
      // The separate worker's LISTEN connection came back by itself too.
      await until(async () => count(worker, 'LISTEN for committed events resumed') > 0, 5000, 'LISTEN to resume');
      assert.equal(count(worker, 'LISTEN for committed events paused'), 1);
    } finally {
      await f.close(running);
      await proxy.close();
    }
  });

  for (const kind of ['closed', 'black-holed'] as const) {
    test(`a database that is ${kind} from the start: /readyz and every API answer 503 with Retry-After, not 500, and within seconds`, { timeout: 60_000 }, async () => {
      // Closed: nothing listens on the port. Black-holed: connections are accepted and never answered.
      const hole = kind === 'black-holed' ? await startTcpProxy({ host: '127.0.0.1', port: 9 }, 'blackhole') : null;
      const url = `postgres://postgres@127.0.0.1:${hole?.port ?? (await freePort())}/repute`;
      const config = loadConfig({ DATABASE_URL: url, REPUTE_SECRET_KEY: SECRET_KEY, REPUTE_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' });
      const database = connect(config.databaseUrl);
      const ctx = createContext(config, database);
      const app = await buildApp(ctx);
      try {
        const started = Date.now();
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503, ready.body);
        assert.equal(typeof ready.json().error, 'string');
        const key = { authorization: `Bearer rpt_${'a'.repeat(43)}` };
        const requests = [
          app.inject({ method: 'GET', url: '/api/v4/reviews', headers: key }),
          app.inject({ method: 'POST', url: '/api/v4/guests', headers: key, payload: { email: 'a@example.com' } }),
          app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'Group' } }),
        ];
        for (const r of await Promise.all(requests)) {
          assertUnavailable({ status: r.statusCode, retryAfter: r.headers['retry-after'] as string | undefined, body: r.body });
        }
        // A black hole costs the connection time-out (5 s), not a request hanging for as long as the outage.
        const took = Date.now() - started;
        assert.ok(took < 15_000, `answered after ${took} ms`);
      } finally {
        await app.close();
        await ctx.rateLimits.close();
        await database.destroy();
        await hole?.close();
      }
    });
  }
}
