// What the webhook benches (bench/webhooks.ts, bench/webhook-bounds.ts) share around a timed run:
// queueing the deliveries, the plain undici POST loop the worker is measured against, and settling
// the database first.
import { type Kysely, sql } from 'kysely';
import { Agent, request } from 'undici';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import { sqliteOf, type TestDatabase } from '../../test/support/app.ts';
import type { Receiver } from './webhook-receiver.ts';

export interface Run {
  seconds: number;
  /** This process's CPU time (user + system) per delivery, in µs; PostgreSQL's own is not in it. */
  cpuUs: number;
}

/**
 * Queues n pending review.received deliveries to the endpoint, as the outbox would (set-based,
 * 1,000 rows a statement): delivery j's event gets the body and the time (created and due) that
 * `event(eventId, j)` gives.
 */
export async function queueDeliveries(db: Kysely<DB>, accountId: string, endpointId: string, n: number,
  event: (eventId: string, j: number) => { payload: string; at: string }): Promise<void> {
  for (let i = 0; i < n; i += 1000) {
    const events = [];
    const deliveries = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const id = newId();
      const { payload, at } = event(id, j);
      events.push({ id, account_id: accountId, type: 'review.received', payload, created_at: at });
      deliveries.push({ id: newId(), account_id: accountId, endpoint_id: endpointId, event_id: id, event_type: 'review.received', status: 'pending', attempt_count: 0, next_attempt_at: at, created_at: at });
    }
    await db.insertInto('events').values(events).execute();
    await db.insertInto('webhook_deliveries').values(deliveries).execute();
  }
}

/** n POSTs of the body to the receiver's /ok, `concurrency` at a time over one keep-alive agent. */
export async function plainPostLoop(receiver: Receiver, body: string, headers: Record<string, string>, n: number, concurrency: number): Promise<Run> {
  const agent = new Agent({ keepAliveTimeout: 4000 });
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) {
      const r = await request(`${receiver.url}/ok`, { method: 'POST', headers, body, dispatcher: agent });
      await r.body.dump();
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return { seconds, cpuUs: (used.user + used.system) / n };
}

/**
 * Finishes the database's work left from earlier writes (a seed, or a worker's run) before a timed
 * run starts: vacuum and checkpoint on PostgreSQL, a WAL checkpoint on SQLite. Otherwise the
 * autovacuum that a worker's run sets off would run during whichever run follows it, and a plain
 * loop timed after a worker's run would pay for the worker's writes.
 */
export async function settleDeliveries(testDb: TestDatabase): Promise<void> {
  if (testDb.dialect === 'postgres') {
    const db = testDb.database.db;
    await sql`vacuum analyze webhook_deliveries, webhook_attempts, events`.execute(db);
    await sql`checkpoint`.execute(db);
  } else {
    sqliteOf(testDb.database).pragma('wal_checkpoint(TRUNCATE)');
  }
}
