// Benchmark: database faults under load. `repute serve` (inline worker) and a `repute worker` run as
// real processes on a PostgreSQL schema of their own; mixed load (list reads, guest pushes, and the
// webhook deliveries of the guest.created events to a local receiver) runs for --seconds while every
// backend of the two processes is terminated every --every seconds (what a restart, a failover or a
// proxy's idle kill does). Prints: process exits, pushes answered 2xx vs found in the database,
// events queued vs delivered, the non-2xx statuses and whether they fell inside a fault window
// (the 2 s after a fault), and the time back to normal after each fault.
//   node --import tsx bench/faults.ts [--seconds 60] [--every 2] [--connections 4]
// Needs TEST_DATABASE_URL (PostgreSQL). Loopback only.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchApp, onInterrupt } from './support/interrupt.ts';
import { createKey, createReview, createTree } from '../test/support/factories.ts';
import { runFaultLoad, type TimedAnswer } from '../test/support/fault-load.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { faultEnv, startServeAndWorker } from '../test/support/repute-processes.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, every: { type: 'string', default: '2' }, connections: { type: 'string', default: '4' } },
});
const seconds = Number(args.seconds);
const everyMs = Number(args.every) * 1000;
const connections = Number(args.connections);
const WINDOW_MS = 2000;
if (!process.env.TEST_DATABASE_URL) {
  // The fault is PostgreSQL's (SQLite has no server to lose); like the other benchmarks' PostgreSQL parts, not run without it.
  console.log('faults: not run, TEST_DATABASE_URL (a PostgreSQL database) is not set');
  process.exit(0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (xs: number[], q: number) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!);

const t = await benchApp('postgres');
const receiver = await startReceiver();
const admin = new pg.Client({ connectionString: t.testDb.url });
await admin.connect();
const appName = `repute_bench_${t.testDb.schema}`;
const tree = await createTree(t);
const readKey = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
const pushKey = await createKey(t, tree.accountId, tree.root, ['guests:write']);
const hookKey = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
const endpoint = (await t.api(hookKey, 'POST', '/webhooks', { name: 'bench', url: receiver.url, events: ['guest.created'] })).json().endpoint;
for (let i = 0; i < 50; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!);

const { serve, worker, base, stop } = await startServeAndWorker((extra) => faultEnv(t.testDb, appName, extra));
const forgetProcesses = onInterrupt(stop);
const processes = { 'repute serve': serve, 'repute worker': worker };

console.log(`faults: ${seconds} s of mixed load (${connections} connections), backends terminated every ${args.every} s`);
const { answers, pushed, faults, terminated, seconds: loadSeconds } = await runFaultLoad({
  base, readKey, pushKey, propertyId: tree.properties[0], admin, applicationName: appName, seconds, everyMs, connections,
});

// Deliveries: wait (at most 60 s) for every queued event to be delivered.
const deliveryWaitStart = performance.now();
let undelivered = -1;
for (;;) {
  const row = await t.ctx.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpoint.id).where('status', '!=', 'delivered').executeTakeFirstOrThrow();
  undelivered = Number(row.n);
  if (undelivered === 0 || performance.now() - deliveryWaitStart > 60_000) break;
  await sleep(200);
}
const queued = (await t.ctx.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', endpoint.id).execute()).map((r) => r.event_id);
const received = new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
const arrived = queued.filter((id) => received.has(id)).length;
const stored = pushed.length === 0 ? 0 : (await t.ctx.db.selectFrom('guests').select((eb) => eb.fn.countAll<number>().as('n')).where('email', 'in', pushed).executeTakeFirstOrThrow()).n;

// Answers that failed, and whether they came back inside the window after a fault (a request
// in flight when the fault struck fails after it, never before).
const failed = answers.filter((a) => a.status < 200 || a.status >= 300);
const doneAt = (a: TimedAnswer) => a.at ?? a.started;
const inWindow = (a: TimedAnswer) => faults.some((f) => doneAt(a) >= f && doneAt(a) < f + WINDOW_MS);
const statuses = new Map<string, number>();
for (const a of failed) {
  const ok503 = a.status === 503 && /^\d+$/.test(String(a.retryAfter)) && typeof JSON.parse(a.body).error === 'string';
  const label = `${a.status}${a.status === 503 ? (ok503 ? ' with Retry-After and the envelope' : ' WITHOUT Retry-After or the envelope') : ''}`;
  statuses.set(label, (statuses.get(label) ?? 0) + 1);
}
// Back to normal: from a fault to the last failed answer before the next fault.
const recoveries = faults.map((f, i) => {
  const next = faults[i + 1] ?? Infinity;
  return Math.max(f, ...failed.map(doneAt).filter((at) => at >= f && at < next)) - f;
});
const exits = Object.entries(processes).filter(([, p]) => p.exitCode() !== null).map(([name, p]) => `${name} (${p.exitCode()})`);

console.log(`requests: ${answers.length} in ${loadSeconds.toFixed(1)} s (${answers.filter((a) => a.kind === 'read').length} list reads, ${answers.filter((a) => a.kind === 'push').length} guest pushes)`);
console.log(`faults: ${faults.length}, backends terminated: ${terminated}`);
console.log(`process exits: ${exits.length}${exits.length ? ` (${exits.join(', ')})` : ''}`);
console.log(`pushes answered 2xx: ${pushed.length}, of them in the database: ${stored}`);
console.log(`events queued: ${queued.length}, delivered: ${arrived} (${undelivered} deliveries not delivered after the wait)`);
console.log(`non-2xx answers: ${failed.length} (${(100 * failed.length / Math.max(1, answers.length)).toFixed(2)}% of requests)`);
for (const [label, count] of statuses) console.log(`  ${label}: ${count}`);
console.log(`  inside a fault window (the ${WINDOW_MS / 1000} s after a fault): ${failed.filter(inWindow).length}, outside: ${failed.filter((a) => !inWindow(a)).length}`);
console.log(`back to normal after a fault: median ${quantile(recoveries, 0.5).toFixed(0)} ms, max ${Math.max(0, ...recoveries).toFixed(0)} ms; faults with no failed answer: ${recoveries.filter((r) => r === 0).length} of ${faults.length}`);
const reads = answers.filter((a) => a.kind === 'read' && a.status === 200).map((a) => doneAt(a) - a.started);
const pushes = answers.filter((a) => a.kind === 'push' && a.status < 300).map((a) => doneAt(a) - a.started);
console.log(`latency of successful answers: list p50 ${quantile(reads, 0.5).toFixed(1)} ms, p99 ${quantile(reads, 0.99).toFixed(1)} ms; push p50 ${quantile(pushes, 0.5).toFixed(1)} ms, p99 ${quantile(pushes, 0.99).toFixed(1)} ms`);
const pauses = [serve, worker].map((p) => p.lines.filter((l) => l.includes('webhook worker paused')).length);
console.log(`worker pause lines logged: serve ${pauses[0]}, worker ${pauses[1]} (one per outage at most)`);

forgetProcesses();
await stop();
await admin.end();
await receiver.close();
await t.close();
const ok = exits.length === 0 && Number(stored) === pushed.length && arrived === queued.length && failed.every((a) => a.status === 503);
console.log(ok ? 'verdict: no exits, nothing lost, only 503s' : 'verdict: FAILED (see above)');
process.exit(ok ? 0 : 1);
