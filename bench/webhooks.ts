// Benchmark: webhook delivery, on SQLite and on PostgreSQL (its own schema), three figures each with
// its ratio against a baseline measured in the same run:
//   1. deliveries/s of one worker to a local receiver vs a plain undici POST loop with the same
//      concurrency and body to the same receiver (target ratio ≥ 0.5);
//   2. with an idle queue, the median time from the commit of a review.received to its arrival
//      at the receiver (target ≤ 50 ms; the baseline is one plain POST's arrival time);
//   3. deliveries/s to a healthy endpoint beside 100,000 queued deliveries to an endpoint whose
//      receiver answers 500, vs the same healthy deliveries alone (target ratio ≥ 0.8).
//   node --import tsx bench/webhooks.ts [--deliveries 20000] [--backlog 100000] [--healthy 20000]
//        [--samples 200] [--rounds 4] [--dialect sqlite|postgres] [--without-database] [--database-cpu]
// --without-database adds, to each throughput round, the worker with its store in memory
// (bench/memory-delivery-store.ts): the worker's own code against the plain loop, without the
// database's claims and writes, so the gap splits into the two.
// The receiver (bench/support/webhook-receiver.ts) runs in a child process and reports arrival times
// on the shared monotonic clock. Loopback only. PostgreSQL needs TEST_DATABASE_URL.
// --database-cpu gives PostgreSQL a CPU of its own (the last) for the PostgreSQL half, and every
// process of the bench (worker, plain loop, receiver) the others: as if the database ran on its own
// machine, as it does in production. On two CPUs the plain loop then shares one CPU with the
// receiver, as the worker does; without it the worker shares the machine with PostgreSQL and the plain
// loop does not. Needs PostgreSQL on this machine and the right to move its processes (root).
// BENCH_WORKER_STATS=1 prints the worker's counters after each throughput run (claims and result
// flushes per delivery: how many database round trips a delivery costs).
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import type { Dialect } from '../src/db/connect.ts';
import { newSecret, secretKey, webhookHeaders } from '../src/delivery/signer.ts';
import type { DeliveryStore } from '../src/delivery/store.ts';
import { DEFAULT_PER_ENDPOINT, startWorker } from '../src/delivery/worker.ts';
import { storesFor } from '../src/stores.ts';
import { newId } from '../src/lib/ids.ts';
import { seal } from '../src/lib/secret-box.ts';
import { upsertReview } from '../src/modules/reviews/service.ts';
import { SECRET_KEY, type TestDatabase } from '../test/support/app.ts';
import { benchDatabase, onInterrupt } from './support/interrupt.ts';
import { memoryDeliveryStore } from './memory-delivery-store.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';
import { cpuCount, pinProcess, pinRunning, postgresProcesses } from './support/cpu-pinning.ts';
import { plainPostLoop, queueDeliveries, type Run, settleDeliveries } from './support/webhook-runs.ts';

const { values: args } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '20000' }, backlog: { type: 'string', default: '100000' },
    healthy: { type: 'string', default: '20000' }, samples: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '4' }, dialect: { type: 'string' },
    'without-database': { type: 'boolean', default: false }, 'database-cpu': { type: 'boolean', default: false },
  },
});

const nowNs = () => process.hrtime.bigint();
const ms = (ns: bigint) => Number(ns) / 1e6;

// --- set-up -------------------------------------------------------------------------------------
interface Setup {
  db: TestDatabase;
  accountId: string;
  nodeId: string;
}

async function setUp(dialect: Dialect): Promise<Setup> {
  const db = await benchDatabase(dialect);
  const accountId = newId();
  const nodeId = newId();
  const now = new Date().toISOString();
  await db.database.db.insertInto('accounts').values({ id: accountId, name: 'Bench', plan_features: '["webhooks","reviews"]', webhook_endpoint_limit: null, created_at: now }).execute();
  await db.database.db.insertInto('nodes').values({ id: nodeId, account_id: accountId, parent_id: null, name: 'Hotel', type: 'property', path: `/${nodeId}/`, created_at: now }).execute();
  return { db, accountId, nodeId };
}

async function addEndpoint(s: Setup, url: string, active = true): Promise<{ id: string; secret: string; secretEnc: string }> {
  const id = newId();
  const secret = newSecret();
  const secretEnc = seal(Buffer.from(SECRET_KEY, 'base64'), secret, id);
  const now = new Date().toISOString();
  await s.db.database.db.insertInto('webhook_endpoints').values({
    id, account_id: s.accountId, name: url, url, events: '["review.received"]', is_active: active ? 1 : 0,
    secret_enc: secretEnc, created_at: now, updated_at: now,
  }).execute();
  return { id, secret, secretEnc };
}

/** A review.received body of realistic size (about 700 bytes). */
function payload(accountId: string, id: string, n: number): string {
  return JSON.stringify({
    id, type: 'review.received', timestamp: new Date().toISOString(), account_id: accountId,
    data: { review: {
      id: newId(), platform: 'google', external_id: `g-${n}`, author: 'A. Guest', rating: 4, rating_normalized: 80,
      title: 'Lovely stay by the lake', text: 'Friendly staff, a quiet room with a view of the lake, and a generous breakfast. The spa was busy in the evening.',
      url: `https://maps.example.com/review/${n}`, language: 'en', sentiment: 'positive', owner_reply: null, replied_at: null,
      reviewed_at: '2026-11-01T10:00:00.000Z', node_id: newId(), is_hidden: false,
    } },
  });
}

/** Queues n deliveries to the endpoint, all due now, and settles the database. */
async function seed(s: Setup, endpointId: string, n: number): Promise<void> {
  const now = new Date().toISOString();
  await queueDeliveries(s.db.database.db, s.accountId, endpointId, n, (id, j) => ({ payload: payload(s.accountId, id, j), at: now }));
  await settleDeliveries(s.db);
}

function config(s: Setup, env: Record<string, string> = {}) {
  return loadConfig({
    DATABASE_URL: s.db.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', ...env,
  });
}

const quiet = { debug() {}, info() {}, warn: (o: object, m: string) => console.error(m, o), error: (o: object, m: string) => console.error(m, o) };

// --- figure 1: throughput ---------------------------------------------------------------------------
/** n deliveries by one worker: seeded into the database, or handed out by `store` (--without-database). */
async function workerRun(s: Setup, receiver: Receiver, endpointId: string, n: number, path: string, store?: DeliveryStore): Promise<Run> {
  if (!store) await seed(s, endpointId, n);
  receiver.reset();
  const arrived = receiver.expect(path, n, 300_000);
  const cpu = process.cpuUsage();
  const started = nowNs();
  const worker = startWorker({ store: store ?? storesFor(s.db.database).deliveries, commits: s.db.database.commits, config: config(s), log: quiet });
  const last = await arrived;
  const used = process.cpuUsage(cpu);
  await worker.stop();
  if (process.env.BENCH_WORKER_STATS) console.log(`    worker stats: ${JSON.stringify(worker.stats)}`);
  return { seconds: ms(last - started) / 1000, cpuUs: (used.user + used.system) / n };
}

/** Deliveries per second over all rounds, and the mean CPU per delivery. */
function sum(runs: Run[], n: number): { rate: number; cpuUs: number } {
  return { rate: (n * runs.length) / runs.reduce((a, r) => a + r.seconds, 0), cpuUs: runs.reduce((a, r) => a + r.cpuUs, 0) / runs.length };
}

// --- figure 2: idle latency ---------------------------------------------------------------------
async function latency(s: Setup, receiver: Receiver, samples: number): Promise<{ median: number; p95: number; baseline: number }> {
  await addEndpoint(s, `${receiver.url}/ok`);
  // Woken by the commit itself (the transaction helper signals after COMMIT), as `repute serve` is.
  const worker = startWorker({ store: storesFor(s.db.database).deliveries, commits: s.db.database.commits, config: config(s), log: quiet });
  receiver.record(true);
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const { review } = await upsertReview(s.db.database.db, s.accountId, {
        node_id: s.nodeId, platform: 'google', external_id: `lat-${i}`, reviewed_at: '2026-11-01T10:00:00.000Z', rating: 4, text: 'Quiet and clean',
      });
      const committed = nowNs();
      const event = await s.db.database.db.selectFrom('events').select('id').where('payload', 'like', `%${review.id}%`).executeTakeFirstOrThrow();
      const deadline = Date.now() + 10_000;
      while (!receiver.arrivals.has(event.id)) {
        if (Date.now() > deadline) throw new Error('a review.received did not arrive within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      times.push(ms(receiver.arrivals.get(event.id)! - committed));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await worker.stop();
  }
  // Baseline: one plain POST at a time, from send to arrival.
  const agent = new Agent();
  const plain: number[] = [];
  for (let i = 0; i < samples; i++) {
    const id = `plain-${process.hrtime.bigint()}-${i}`;
    const sent = nowNs();
    const r = await request(`${receiver.url}/ok`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id }, body: '{}', dispatcher: agent });
    await r.body.dump();
    plain.push(ms(receiver.arrivals.get(id) ?? (await waitArrival(receiver, id)) - sent));
  }
  await agent.close();
  receiver.record(false);
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.floor(sorted.length * 0.95)]!, baseline: plain.sort((a, b) => a - b)[Math.floor(plain.length / 2)]! };
}

async function waitArrival(receiver: Receiver, id: string): Promise<bigint> {
  while (!receiver.arrivals.has(id)) await new Promise((resolve) => setTimeout(resolve, 1));
  return receiver.arrivals.get(id)!;
}

// --- --database-cpu ------------------------------------------------------------------------------
/**
 * Puts PostgreSQL (its postmaster and every backend) on the last CPU and this process and the
 * receiver on the others; answers the function that puts them all back on every CPU.
 */
async function givePostgresItsOwnCpu(s: Setup, receiver: Receiver): Promise<() => void> {
  const cpus = cpuCount();
  if (cpus < 2) throw new Error('--database-cpu needs at least two CPUs');
  const postgres = await postgresProcesses(s.db.database.db);
  const place = (database: string, rest: string) => {
    pinRunning(postgres(), database);
    for (const pid of [process.pid, receiver.child.pid!]) pinProcess(pid, rest);
  };
  const restore = () => place(`0-${cpus - 1}`, `0-${cpus - 1}`);
  place(String(cpus - 1), `0-${cpus - 2}`);
  // Interrupted, the bench must not leave the machine's PostgreSQL on one CPU.
  const forget = onInterrupt(restore);
  return () => {
    forget();
    restore();
  };
}

// --- main -------------------------------------------------------------------------------------------
async function main(): Promise<void> {
  const dialects: Dialect[] = args.dialect ? [args.dialect as Dialect] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const deliveries = Number(args.deliveries);
  const rounds = Number(args.rounds);
  const receiver = await startReceiver();
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  try {
    for (const dialect of dialects) {
      const ownCpu = args['database-cpu'] && dialect === 'postgres';
      const tag = ownCpu ? `${dialect}, database on its own CPU` : dialect;
      let unpin = () => {};
      try {
        // 1. Throughput, in rounds that alternate which side goes first (ABBA), so a machine that speeds
        // up or slows down through the run weighs on both sides alike.
        const s = await setUp(dialect);
        if (ownCpu) unpin = await givePostgresItsOwnCpu(s, receiver);
        try {
          const endpoint = await addEndpoint(s, `${receiver.url}/ok`);
          const body = payload(s.accountId, newId(), 0);
          const headers = webhookHeaders(secretKey(endpoint.secret), newId(), body);
          // A round of each side first, not counted: the first round on a database runs the worker's
          // driver and statements cold (JIT, prepared statements) while the loop's undici path is
          // already warm from the other database's half; both sides are timed warm.
          const warmUp = Math.min(deliveries, 5000);
          await plainPostLoop(receiver, body, headers, warmUp, DEFAULT_PER_ENDPOINT);
          await workerRun(s, receiver, endpoint.id, warmUp, '/ok');
          const baseRuns: Run[] = [];
          const workerRuns: Run[] = [];
          const inMemoryRuns: Run[] = [];
          const template = { endpointId: endpoint.id, eventType: 'review.received', payload: body, url: `${receiver.url}/ok`, secretEnc: endpoint.secretEnc };
          for (let round = 0; round < rounds; round++) {
            const plain = async () => {
              await settleDeliveries(s.db);
              return plainPostLoop(receiver, body, headers, deliveries, DEFAULT_PER_ENDPOINT);
            };
            const delivered = () => workerRun(s, receiver, endpoint.id, deliveries, '/ok');
            if (round % 2 === 0) baseRuns.push(await plain());
            workerRuns.push(await delivered());
            if (args['without-database']) {
              await settleDeliveries(s.db);
              inMemoryRuns.push(await workerRun(s, receiver, endpoint.id, deliveries, '/ok', memoryDeliveryStore(template, deliveries)));
            }
            if (round % 2 === 1) baseRuns.push(await plain());
            const [b, w] = [deliveries / baseRuns.at(-1)!.seconds, deliveries / workerRuns.at(-1)!.seconds];
            const m = args['without-database'] ? `, without the database ${(deliveries / inMemoryRuns.at(-1)!.seconds).toFixed(0)}/s` : '';
            console.log(`  [${tag}] round ${round + 1}: worker ${w.toFixed(0)}/s, plain loop ${b.toFixed(0)}/s (${(w / b).toFixed(2)})${m}`);
          }
          const base = sum(baseRuns, deliveries);
          const worker = sum(workerRuns, deliveries);
          say(`[${tag}] 1. throughput: worker ${worker.rate.toFixed(0)} deliveries/s vs plain undici POST loop ${base.rate.toFixed(0)}/s ` +
            `(concurrency ${DEFAULT_PER_ENDPOINT}, ${deliveries} x ${rounds}): ratio ${(worker.rate / base.rate).toFixed(2)} (target ≥ 0.5); ` +
            `CPU of this process per delivery ${worker.cpuUs.toFixed(0)} µs vs ${base.cpuUs.toFixed(0)} µs per plain POST`);
          if (inMemoryRuns.length > 0) {
            const inMemory = sum(inMemoryRuns, deliveries);
            say(`[${tag}] 1b. the same worker without the database (its store in memory): ${inMemory.rate.toFixed(0)} deliveries/s, ` +
              `ratio ${(inMemory.rate / base.rate).toFixed(2)} vs the plain loop; CPU of this process per delivery ${inMemory.cpuUs.toFixed(0)} µs`);
          }
        } finally {
          await s.db.drop();
        }

        // 2. Idle latency.
        const l = await setUp(dialect);
        try {
          const { median, p95, baseline } = await latency(l, receiver, Number(args.samples));
          say(`[${tag}] 2. idle latency commit → arrival: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms ` +
            `(target ≤ 50 ms: ratio ${(median / 50).toFixed(2)}); plain POST send → arrival median ${baseline.toFixed(1)} ms`);
        } finally {
          await l.db.drop();
        }

        // 3. A failing endpoint's backlog beside a healthy endpoint: two databases, one without the
        // backlog and one with it, measured in alternating rounds.
        const clean = await setUp(dialect);
        const loaded = await setUp(dialect);
        try {
          const healthy = Number(args.healthy);
          const cleanGood = await addEndpoint(clean, `${receiver.url}/ok`);
          const loadedGood = await addEndpoint(loaded, `${receiver.url}/ok`);
          const bad = await addEndpoint(loaded, `${receiver.url}/fail`);
          const seeded = nowNs();
          await seed(loaded, bad.id, Number(args.backlog));
          const seedS = ms(nowNs() - seeded) / 1000;
          const aloneRuns: Run[] = [];
          const besideRuns: Run[] = [];
          for (let round = 0; round < rounds; round++) {
            // Each run seeds (and settles) its own database; the other's left-over work is settled too.
            await settleDeliveries(loaded.db);
            aloneRuns.push(await workerRun(clean, receiver, cleanGood.id, healthy, '/ok'));
            await settleDeliveries(clean.db);
            besideRuns.push(await workerRun(loaded, receiver, loadedGood.id, healthy, '/ok'));
          }
          const alone = sum(aloneRuns, healthy).rate;
          const beside = sum(besideRuns, healthy).rate;
          const counts = await loaded.db.database.db.selectFrom('webhook_deliveries').select(['status', (eb) => eb.fn.countAll<number>().as('n')])
            .where('endpoint_id', '=', bad.id).groupBy('status').execute();
          say(`[${tag}] 3. healthy endpoint beside ${args.backlog} queued deliveries to a 500 receiver: ${beside.toFixed(0)}/s ` +
            `vs without them ${alone.toFixed(0)}/s (${healthy} x ${rounds}): ratio ${(beside / alone).toFixed(2)} (target ≥ 0.8; ` +
            `backlog seeded in ${seedS.toFixed(1)} s; failing endpoint's rows: ${counts.map((c) => `${c.status} ${c.n}`).join(', ')})`);
        } finally {
          await clean.db.drop();
          await loaded.db.drop();
        }
      } finally {
        unpin();
      }
    }
  } finally {
    receiver.child.disconnect();
  }
  console.log('\nsummary\n' + lines.join('\n'));
}

await main();
