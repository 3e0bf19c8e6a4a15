// Diagnostic, PostgreSQL only: how much of the webhook worker's gap to a plain POST loop each part of
// the database's work accounts for. In alternating cycles, with the same receiver, body and
// concurrency as bench/webhooks.ts, it times:
//   plain        the plain undici POST loop (the baseline);
//   database     the worker with its real store (what bench/webhooks.ts figure 1 measures);
//   no-attempts  the real store, but results write the deliveries only (no webhook_attempts row);
//   no-results   the real store's claims, and no results written;
//   read-claims  claims that only read the deliveries (no lease written), results written as the real
//                store writes them (without its check of the lease);
//   reads-only   claims that only read, and no results written;
//   memory       no database (bench/memory-delivery-store.ts, figure 1b);
//   memory-beside-load  no database, beside child processes that only burn as much CPU as
//                PostgreSQL's processes used in the latest database run (its share of the run's
//                time, from /proc): what the database's CPU alone, on the same CPUs, costs the
//                worker, apart from the worker's own work for the database (its driver, the waits).
//   plain-beside-load  the plain loop beside the same load: what that load costs a client with no
//                database at all, so the worker's ratio to it compares the two under the same neighbours.
// All but database are bounds or comparisons, not designs: attempts and results must be kept, and
// a claim that writes nothing lets two workers take the same delivery (here the one worker skips
// what it already took by a high-water mark on the due time; each delivery is seeded with its own).
// Each mode's line also gives, per delivery, the CPU time of this process (the worker or the plain
// loop), the receiver and PostgreSQL, how often this process was preempted, and how long the event
// loops of this process and of the receiver were runnable but waiting for a CPU: where a mode's
// time went. `--load-nice` lowers the burners' priority (does the load cost by priority or by presence?).
// A diagnostic, not part of `npm run bench`.
//   node --import tsx bench/webhook-bounds.ts [--deliveries 20000] [--rounds 4] [--load-nice 0]
// Needs TEST_DATABASE_URL, and PostgreSQL on this machine (its processes' CPU time is read from /proc). Loopback only.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { newSecret, secretKey, webhookHeaders } from '../src/delivery/signer.ts';
import { type AttemptRecord, type ClaimedRow, type DeliveryStore, toClaimed } from '../src/delivery/store.ts';
import { RECORD } from '../src/delivery/store-postgres.ts';
import { DEFAULT_PER_ENDPOINT, startWorker } from '../src/delivery/worker.ts';
import type { PostgresDatabase } from '../src/db/connect.ts';
import { newId } from '../src/lib/ids.ts';
import { seal } from '../src/lib/secret-box.ts';
import { storesFor } from '../src/stores.ts';
import { SECRET_KEY } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';
import { memoryDeliveryStore } from './memory-delivery-store.ts';
import { burnCpu } from './support/cpu-load.ts';
import { postgresProcesses } from './support/cpu-pinning.ts';
import { cpuSeconds, runQueueSeconds } from './support/proc-stat.ts';
import { startReceiver } from './support/webhook-receiver.ts';
import { plainPostLoop, queueDeliveries, settleDeliveries } from './support/webhook-runs.ts';

const { values: args } = parseArgs({
  options: { deliveries: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '4' }, 'load-nice': { type: 'string', default: '0' } },
});
const n = Number(args.deliveries);
const rounds = Number(args.rounds);
/** The burners' niceness (0–19): whether the load's cost depends on its priority. */
const loadNice = Number(args['load-nice']);
if (!Number.isInteger(loadNice) || loadNice < 0 || loadNice > 19) throw new Error('--load-nice must be a whole number from 0 to 19');
if (!process.env.TEST_DATABASE_URL) throw new Error('bench/webhook-bounds.ts needs TEST_DATABASE_URL (PostgreSQL)');

const MODES = ['plain', 'database', 'no-attempts', 'no-results', 'read-claims', 'reads-only', 'memory', 'memory-beside-load', 'plain-beside-load'] as const;
type Mode = (typeof MODES)[number];

const receiver = await startReceiver();
const url = `${receiver.url}/ok`;

const testDb = await benchDatabase('postgres');
const db = testDb.database.db;
const { pool } = testDb.database as PostgresDatabase;
const accountId = newId();
const endpointId = newId();
const secret = newSecret();
const secretEnc = seal(Buffer.from(SECRET_KEY, 'base64'), secret, endpointId);
const created = new Date().toISOString();
await db.insertInto('accounts').values({ id: accountId, name: 'Bench', plan_features: '["webhooks"]', webhook_endpoint_limit: null, created_at: created }).execute();
await db.insertInto('webhook_endpoints').values({
  id: endpointId, account_id: accountId, name: url, url, events: '["review.received"]', is_active: 1, secret_enc: secretEnc, created_at: created, updated_at: created,
}).execute();
// About the size of bench/webhooks.ts's review.received body.
const body = JSON.stringify({ id: newId(), type: 'review.received', timestamp: created, account_id: accountId, data: { text: 'x'.repeat(560) } });
const config = loadConfig({ DATABASE_URL: testDb.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' });
const quiet = { debug() {}, info() {}, warn: (o: object, m: string) => console.error(m, o), error: (o: object, m: string) => console.error(m, o) };
const realStore = storesFor(testDb.database).deliveries;
const postgres = await postgresProcesses(db);
/** CPU seconds used so far by each of PostgreSQL's processes (the postmaster and its backends), by pid. */
const postgresCpuByProcess = () => new Map(postgres().map((pid) => [pid, cpuSeconds([pid])]));
/** PostgreSQL's CPUs' worth of time in the latest database run (0.4: 40 % of one CPU). */
let databaseCpus = 0;

// The real claim's reads (the pending index, the event's body, the endpoint), with no lease written.
const READ_CLAIM = `
  SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, ev.payload, e.url, e.secret_enc,
    e.previous_secret_enc, e.previous_secret_until, d.manual_retry, d.next_attempt_at
  FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= $2 AND d.next_attempt_at > $3
  ORDER BY d.next_attempt_at LIMIT $4`;

/** RECORD rewritten for an upper bound; fails loudly when RECORD no longer reads as expected. */
function recordWithout(part: RegExp | string, replacement: string): string {
  const text = RECORD.replace(part, replacement);
  if (text === RECORD) throw new Error(`bench/webhook-bounds.ts: RECORD has changed; update the rewrite of ${part}`);
  return text;
}
// The real write of results, less its check that the claim's lease still holds (none is written here).
const RECORD_UNLEASED = recordWithout('AND d.lease_owner = r.owner', '');
// The real write of results, less the attempt's row.
const RECORD_NO_ATTEMPTS = recordWithout(/INSERT INTO webhook_attempts[\s\S]*$/, 'SELECT count(*) FROM updated');

/** Writes results with one of RECORD's rewrites (no health, no pause: every answer here is a 200). */
async function writeResults(name: string, text: string, records: AttemptRecord[]): Promise<string[]> {
  if (records.length === 0) return [];
  const col = <K extends keyof AttemptRecord>(key: K) => records.map((x) => x[key]);
  await pool.query({
    name, text,
    values: [col('deliveryId'), col('owner'), col('status'), col('statusCode'), col('attemptedAt'), col('nextAttemptAt'),
      col('attemptId'), col('durationMs'), col('error'), col('responseBody')],
  });
  return [];
}

/** The real claims; results written without attempts, or not at all. */
function claimingStore(results: 'no-attempts' | 'none'): DeliveryStore {
  return {
    claim: (r) => realStore.claim(r),
    release: (deliveries, now) => realStore.release(deliveries, now),
    record: async (records) => (results === 'none' ? [] : writeResults('bench_record_no_attempts', RECORD_NO_ATTEMPTS, records)),
  };
}

/** Claims that only read (READ_CLAIM); results written without the lease check, or not at all. */
function readingStore(withResults: boolean): DeliveryStore {
  let after = '';
  return {
    async claim(r) {
      if (r.excluded.includes(endpointId)) return [];
      const { rows } = await pool.query<ClaimedRow & { next_attempt_at: string }>({
        name: 'bench_read_claim', text: READ_CLAIM, values: [endpointId, r.now, after, Math.min(r.limit, r.room.get(endpointId) ?? r.perEndpoint)],
      });
      if (rows.length > 0) after = rows.at(-1)!.next_attempt_at;
      return rows.map((row) => toClaimed(row, r));
    },
    record: async (records) => (withResults ? writeResults('bench_record_unleased', RECORD_UNLEASED, records) : []),
    async release() {},
  };
}

/** Queues n deliveries, each due at its own millisecond (the reading stores' high-water mark needs that). */
async function seed(): Promise<void> {
  const first = Date.now() - n - 1000;
  await queueDeliveries(db, accountId, endpointId, n, (_id, j) => ({ payload: body, at: new Date(first + j).toISOString() }));
}

async function plainLoop(besideLoad: boolean): Promise<Run> {
  const headers = webhookHeaders(secretKey(secret), newId(), body);
  const stopBurning = besideLoad ? await startBurning() : null;
  try {
    return await measured(async () => {
      await plainPostLoop(receiver, body, headers, n, DEFAULT_PER_ENDPOINT);
    });
  } finally {
    stopBurning?.();
  }
}

/** What one timed run of n deliveries cost: its rate, and per delivery each party's CPU time (µs), the bench process's preemptions and the two event loops' waits for a CPU (µs). */
interface Run { rate: number; self: number; receiver: number; postgres: number; preempted: number; selfWaited: number; receiverWaited: number }

/** Readings so far: CPU time (seconds) of this process (the worker or the plain loop), the receiver and PostgreSQL's processes; this process's involuntary context switches; the run-queue waits (seconds) of this process's and the receiver's event loops. */
function readingsNow() {
  const usage = process.resourceUsage();
  return {
    self: (usage.userCPUTime + usage.systemCPUTime) / 1e6, receiver: cpuSeconds([receiver.child.pid!]), postgres: postgresCpuByProcess(),
    preempted: usage.involuntaryContextSwitches, selfWaited: runQueueSeconds(process.pid), receiverWaited: runQueueSeconds(receiver.child.pid!),
  };
}

/** PostgreSQL's CPU seconds between two readings: by process, as a backend that ends (the pool closes an idle one) takes its time with it. */
function postgresSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}

/** Times `run` (n deliveries) and reads what it cost each party. */
async function measured(run: () => Promise<void>): Promise<Run> {
  const before = readingsNow();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const after = readingsNow();
  const perDelivery = (used: number, scale: number) => (used * scale) / n;
  return {
    rate: n / seconds, self: perDelivery(after.self - before.self, 1e6), receiver: perDelivery(after.receiver - before.receiver, 1e6),
    postgres: perDelivery(postgresSecondsBetween(before.postgres, after.postgres), 1e6), preempted: perDelivery(after.preempted - before.preempted, 1),
    selfWaited: perDelivery(after.selfWaited - before.selfWaited, 1e6), receiverWaited: perDelivery(after.receiverWaited - before.receiverWaited, 1e6),
  };
}

/** PostgreSQL's CPUs' worth of time during a run (0.4: 40 % of one CPU): its CPU per delivery times the rate. */
const postgresCpus = (run: Run) => (run.postgres * run.rate) / 1e6;

/** Starts burning the latest database run's CPU share; answers the function that stops it. */
async function startBurning(): Promise<() => void> {
  const stop = burnCpu(databaseCpus, loadNice);
  await sleep(300); // the burners' Node.js starting up
  return stop;
}

async function workerRun(mode: Exclude<Mode, 'plain' | 'plain-beside-load'>): Promise<Run> {
  const inMemory = mode === 'memory' || mode === 'memory-beside-load';
  if (!inMemory) {
    // What an earlier mode left pending (no results written) would be claimed again: out of the way.
    await db.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('status', '=', 'pending').execute();
    await seed();
  }
  const store = mode === 'database' ? realStore : mode === 'no-attempts' ? claimingStore('no-attempts') : mode === 'no-results' ? claimingStore('none')
    : mode === 'read-claims' ? readingStore(true) : mode === 'reads-only' ? readingStore(false)
    : memoryDeliveryStore({ endpointId, eventType: 'review.received', payload: body, url, secretEnc }, n);
  await settleDeliveries(testDb);
  receiver.reset();
  const stopBurning = mode === 'memory-beside-load' ? await startBurning() : null;
  const arrived = receiver.expect('/ok', n, 300_000);
  let worker: ReturnType<typeof startWorker> | undefined;
  const run = await measured(async () => {
    worker = startWorker({ store, commits: testDb.database.commits, config, log: quiet });
    await arrived;
  });
  if (mode === 'database') databaseCpus = postgresCpus(run);
  stopBurning?.();
  await worker!.stop();
  return run;
}

const runs = new Map<Mode, Run[]>(MODES.map((m) => [m, []]));
try {
  // Cycle 0 warms every path and is not counted; the order reverses each cycle.
  for (let cycle = 0; cycle <= rounds; cycle++) {
    const order = cycle % 2 === 0 ? [...MODES] : [...MODES].reverse();
    const line: string[] = [];
    for (const mode of order) {
      const plain = mode === 'plain' || mode === 'plain-beside-load';
      if (plain) await settleDeliveries(testDb);
      const run = plain ? await plainLoop(mode === 'plain-beside-load') : await workerRun(mode);
      if (cycle > 0) runs.get(mode)!.push(run);
      line.push(`${mode} ${run.rate.toFixed(0)}/s${mode === 'database' ? ` (PostgreSQL ${databaseCpus.toFixed(2)} CPU)` : ''}`);
    }
    console.log(`  cycle ${cycle}${cycle === 0 ? ' (warm-up)' : ''}: ${line.join(', ')}`);
  }
  // Rate over all cycles: deliveries over the summed time; the rest, the mean of the cycles.
  const overall = (mode: Mode) => runs.get(mode)!.length / runs.get(mode)!.reduce((a, r) => a + 1 / r.rate, 0);
  const mean = (mode: Mode, key: Exclude<keyof Run, 'rate'>) => runs.get(mode)!.reduce((a, r) => a + r[key], 0) / runs.get(mode)!.length;
  const plain = overall('plain');
  console.log(`\nPostgreSQL, ${n} deliveries x ${rounds} cycles, against the plain loop (${plain.toFixed(0)}/s);`);
  console.log('Per delivery: CPU (µs) of this process (the worker, or the plain loop), the receiver and PostgreSQL; this process preempted;');
  console.log('the event loops of this process and of the receiver runnable but waiting for a CPU (µs):');
  for (const mode of MODES) {
    const ratio = mode === 'plain' ? '' : `ratio ${(overall(mode) / plain).toFixed(2)}`;
    const cpu = `${mean(mode, 'self').toFixed(0)} / ${mean(mode, 'receiver').toFixed(0)} / ${mean(mode, 'postgres').toFixed(0)} µs, ${mean(mode, 'preempted').toFixed(2)}, `
      + `waited ${mean(mode, 'selfWaited').toFixed(0)} / ${mean(mode, 'receiverWaited').toFixed(0)} µs`;
    console.log(`  ${mode.padEnd(18)} ${overall(mode).toFixed(0).padStart(6)}/s  ${ratio.padEnd(11)} ${cpu}`);
  }
  const shares = runs.get('database')!.map((run) => postgresCpus(run).toFixed(2)).join(', ');
  console.log(`  (PostgreSQL's processes used ${shares} CPUs in the database runs; the two *-beside-load modes burned the latest of them${loadNice === 0 ? '' : `, at nice ${loadNice}`})`);
  const besideLoad = overall('plain-beside-load');
  console.log(`  the worker with its database against the plain loop beside the same load: ratio ${(overall('database') / besideLoad).toFixed(2)}`);
} finally {
  await testDb.drop();
  receiver.child.disconnect();
}
