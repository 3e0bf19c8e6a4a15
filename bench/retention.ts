// Benchmark: the retention pass (src/modules/webhooks/retention.ts) on SQLite and, with
// TEST_DATABASE_URL, PostgreSQL. Each round seeds a fresh database with N finished deliveries
// (delivered, each with its event and one attempt) whose last attempt is 40 days old, N / 5 finished
// yesterday and N / 5 pending 40 days old (a paused endpoint's), plus N events 40 days old that no
// delivery refers to (reviews written while no endpoint subscribed). Then it purges with a 30-day
// retention, timed, and checks what is left. Baseline in the same run, on a database seeded alike:
// the same deletions as two set-based statements, each one transaction (what a purge written without
// care for a live database would do: it holds SQLite's writer for the whole table). Rounds alternate.
//   node --import tsx bench/retention.ts [--rows 100000] [--rounds 2] [--db sqlite|postgres|both]
// Prints rows deleted per second for each and their ratio (no target: the pass runs once a day).
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../src/db/connect.ts';
import type { DB } from '../src/db/schema.ts';
import { DAY_MS } from '../src/lib/time.ts';
import { purgeWebhookHistory, retentionCutoff } from '../src/modules/webhooks/retention.ts';
import type { TestApp } from '../test/support/app.ts';
import { createKey, createTree } from '../test/support/factories.ts';
import { createEndpoint } from '../test/webhooks/helpers.ts';
import { benchApp } from './support/interrupt.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '2' }, db: { type: 'string', default: 'both' } } });
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const dialects: Dialect[] = values.db === 'both' ? (process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) : [values.db as Dialect];

/** Rows 1..n as the dialect writes a series: `g.x` in a FROM clause. */
const series = (dialect: Dialect, n: number) => (dialect === 'postgres'
  ? sql.raw(`generate_series(1, ${n}) as g(x)`)
  : sql.raw(`(with recursive s(x) as (select 1 union all select x + 1 from s where x < ${n}) select x from s) as g`));

interface Seeded { deliveries: number; events: number }

/** Seeds the rows the head of this file describes; answers what a 30-day purge must delete. */
async function seed(t: TestApp, dialect: Dialect): Promise<Seeded> {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const { endpoint } = await createEndpoint(t, key, 'https://hooks.example.com/x', ['review.received']);
  const db = t.testDb.database.db;
  const old = new Date(Date.now() - 40 * DAY_MS).toISOString();
  const yesterday = new Date(Date.now() - DAY_MS).toISOString();
  const part = Math.floor(ROWS / 5);
  // kind 0: finished 40 days ago; 1: finished yesterday; 2: pending; 3: an event no delivery refers to.
  const batches: Array<[string, number, string, string | null]> = [['o', ROWS, 'delivered', old], ['y', part, 'delivered', yesterday], ['p', part, 'pending', null], ['u', ROWS, '', null]];
  for (const [prefix, n, status, lastAttempt] of batches) {
    await sql`insert into events (id, account_id, type, payload, created_at)
      select ${`${prefix}e`} || g.x, ${tree.accountId}, 'review.received', '{"id":"x","type":"review.received"}', ${old} from ${series(dialect, n)}`.execute(db);
    if (status === '') continue;
    await sql`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, status, attempt_count, last_status_code, last_attempt_at, next_attempt_at, lease_until, created_at)
      select ${`${prefix}d`} || g.x, ${tree.accountId}, ${endpoint.id}, ${`${prefix}e`} || g.x, 'review.received', ${status}, ${lastAttempt === null ? 0 : 1},
        ${lastAttempt === null ? null : 200}, ${lastAttempt}, ${old}, null, ${old} from ${series(dialect, n)}`.execute(db);
    if (lastAttempt === null) continue;
    await sql`insert into webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error, response_body)
      select ${`${prefix}a`} || g.x, ${`${prefix}d`} || g.x, ${lastAttempt}, 200, 5, null, '' from ${series(dialect, n)}`.execute(db);
  }
  if (dialect === 'postgres') await sql`analyze`.execute(db);
  return { deliveries: ROWS, events: 2 * ROWS };
}

/** The baseline: the same deletions as two set-based statements (the trigger takes the attempts). */
async function setBased(db: Kysely<DB>, before: string): Promise<{ deliveries: number; events: number }> {
  const deliveries = await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('last_attempt_at', '<', before).executeTakeFirst();
  const events = await db.deleteFrom('events').where('created_at', '<', before)
    .where('id', 'not in', db.selectFrom('webhook_deliveries').select('event_id')).executeTakeFirst();
  return { deliveries: Number(deliveries.numDeletedRows), events: Number(events.numDeletedRows) };
}

async function remaining(db: Kysely<DB>): Promise<string> {
  const count = async (table: 'webhook_deliveries' | 'webhook_attempts' | 'events') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return `${await count('webhook_deliveries')} deliveries, ${await count('webhook_attempts')} attempts, ${await count('events')} events`;
}

async function round(dialect: Dialect, which: 'pass' | 'set-based'): Promise<number> {
  const t = await benchApp(dialect);
  try {
    const expected = await seed(t, dialect);
    const db = t.testDb.database.db;
    const cutoff = retentionCutoff(new Date(), 30);
    const started = process.hrtime.bigint();
    const got = which === 'pass' ? await purgeWebhookHistory(db, cutoff) : await setBased(db, cutoff.toISOString());
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (got.deliveries !== expected.deliveries || got.events !== expected.events) {
      throw new Error(`${which} deleted ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
    const left = await remaining(db);
    const rate = (got.deliveries * 2 + got.events) / seconds; // a delivery's attempt is a row too
    console.log(`  [${dialect}] ${which}: ${(seconds * 1000).toFixed(0)} ms, ${Math.round(rate)} rows/s; left ${left}`);
    return rate;
  } finally {
    await t.close();
  }
}

for (const dialect of dialects) {
  const pass: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    pass.push(await round(dialect, 'pass'));
    baseline.push(await round(dialect, 'set-based'));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`[${dialect}] retention pass: ${Math.round(mean(pass))} rows/s vs set-based statements ${Math.round(mean(baseline))} rows/s `
    + `(${ROWS} old deliveries with their attempts and ${2 * ROWS} old events, x ${ROUNDS}): ratio ${(mean(pass) / mean(baseline)).toFixed(2)}`);
}
