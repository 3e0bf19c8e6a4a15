// What the webhook benches (bench/webhooks.ts, bench/webhook-bounds.ts) share around a timed run:
// the plain undici POST loop the worker is measured against, and settling the database first.
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { sqliteOf, type TestDatabase } from '../../test/support/app.ts';
import type { Receiver } from './webhook-receiver.ts';

export interface Run {
  seconds: number;
  /** This process's CPU time (user + system) per delivery, in µs; PostgreSQL's own is not in it. */
  cpuUs: number;
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
