// Benchmark (issue 14): Repute against the floor of its stack, measured from outside.
//   node --import tsx bench/floor.ts [--reviews 1000000] [--seconds 4] [--slice 1] [--rounds 6] [--connections 16] [--db sqlite|postgres|both]
//     [--only page1,deep,scores,mentions,guests] [--no-pin] [--floor node|fastify] [--floor-rows objects|arrays]
// Data: one account, root → 5 groups → 10 properties, N reviews (55% in the first group, whose key
// is used), a mention for about every fourth review. Two servers on the same database, each in its
// own process:
//  - Repute: `repute serve` (the compiled bundle, as operators run it), inline worker off;
//  - the floor (bench/support/floor-server.ts): bare node:http with the driver alone, running the
//    SQL Repute runs for the same request (captured from Repute), a plain key comparison, the same
//    envelope, JSON.stringify. Two variants measure parts of the distance (FloorOptions): --floor
//    fastify serves the same answers through a bare Fastify app, and --floor-rows arrays reads the
//    rows as arrays and makes their objects as Repute does (src/db/row-maker.ts) instead of taking
//    the driver's own object rows.
// Both answers are checked byte for byte (md5) before any load. Load: wrk -t1 -c16 (Debian's
// package, installed when missing), first 2 s unmeasured per scenario and server (warm-up), then
// in rounds interleaved between the servers, each round's seconds cut into slices of --slice s run
// floor, Repute, Repute, floor, … (ABBA), so that this shared machine's speed, which moves within
// seconds, falls on both alike instead of on whichever server ran in a slow stretch (and, with more
// than one CPU, both servers on the last CPU, wrk on the others: see PIN); per scenario and
// server: req/s, p50/p99 latency, and the server's CPU time per request (/proc/<pid>/stat); per
// scenario the ratio of the means and the median of the rounds' paired ratios.
// Scenarios: GET /reviews page 1 and page 20,000, GET /analytics/scores, GET /insights/mentions
// (target ≥ 0.9), and POST /guests (target ≥ 0.8): a new guest with one stay per request (wrk's Lua
// numbers the e-mails), whose answers are compared with ids, times and the e-mail set aside.
import { execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Dialect } from '../src/db/connect.ts';
import { cursorsFor, listBinding } from '../src/http/pagination.ts';
import { cliDatabaseUrl } from '../test/cli/run.ts';
import { SECRET_KEY } from '../test/support/app.ts';
import { benchDatabase, onInterrupt } from './support/interrupt.ts';
import { freePort } from '../test/support/ports.ts';
import { seedMentions, seedReviews } from './support/data.ts';
import { cpuCount, pinProcess } from './support/cpu-pinning.ts';
import { cpuSeconds } from './support/proc-stat.ts';
import { captureRouteQueries, type Query } from './support/explain.ts';
import type { FloorOptions } from './support/floor-server.ts';

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    reviews: { type: 'string', default: '1000000' }, seconds: { type: 'string', default: '4' }, slice: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '16' }, db: { type: 'string', default: 'both' }, pin: { type: 'boolean', default: true },
    floor: { type: 'string', default: 'node' }, 'floor-rows': { type: 'string', default: 'objects' },
    only: { type: 'string' },
  },
});
const REVIEWS = Number(args.reviews);
const SECONDS = Number(args.seconds);
/** Slices per server and round: each a wrk run of SECONDS / SLICES s. */
const SLICES = Math.max(1, Math.round(SECONDS / Number(args.slice)));
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const DEEP_PAGE = 20_000;
const WARM_UP_SECONDS = 2;
const LIMIT = 25;
const dialects: Dialect[] = args.db === 'both' ? (process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) : [args.db as Dialect];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/**
 * With more than one CPU, both servers (every thread of theirs) run on the last and wrk on the
 * others (taskset): the scheduler would otherwise put one server on a CPU whose neighbour on the
 * host is busier than the other's, a difference of its own between rounds. --no-pin leaves it be.
 */
const CPUS = cpuCount();
const PIN = args.pin && CPUS > 1;
const SERVER_CPU = String(CPUS - 1);
const LOAD_CPUS = `0-${CPUS - 2}`;
const pinServer = (pid: number) => {
  if (PIN) pinProcess(pid, SERVER_CPU);
};

function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log('  installing wrk (Debian package)…');
  const install = spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install.status !== 0) throw new Error('wrk is missing and apt-get install wrk failed');
}

/** CPU time (user + system) of a process so far, in µs. */
const cpuMicros = (pid: number): number => cpuSeconds([pid]) * 1e6;

interface Figures { rps: number; p50: number; p99: number; cpuPerRequest: number; errors: number; requests: number; seconds: number }

/** Several wrk runs against one server as one: requests over their summed time, CPU over their requests, the mean of their percentiles. */
function combined(runs: Figures[]): Figures {
  const sum = (k: keyof Figures) => runs.reduce((s, f) => s + f[k], 0);
  const requests = sum('requests');
  const seconds = sum('seconds');
  return {
    rps: requests / seconds, p50: sum('p50') / runs.length, p99: sum('p99') / runs.length,
    cpuPerRequest: runs.reduce((s, f) => s + f.cpuPerRequest * f.requests, 0) / Math.max(1, requests), errors: sum('errors'), requests, seconds,
  };
}

/** `wrk --latency` against one URL (with a Lua script: its requests); latency lines read as ms. */
function wrk(url: string, key: string, pid: number, script?: string, seconds = SECONDS / SLICES): Figures {
  const before = cpuMicros(pid);
  const out = execFileSync(PIN ? 'taskset' : 'wrk', [...(PIN ? ['-c', LOAD_CPUS, 'wrk'] : []), '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', `Authorization: Bearer ${key}`, ...(script ? ['-s', script] : []), url], { encoding: 'utf8' });
  const cpu = cpuMicros(pid) - before;
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    if (!m) throw new Error(`wrk: no ${label}% latency in\n${out}`);
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const run = /(\d+) requests in ([\d.]+)(ms|s|m)\b/.exec(out)!;
  const requests = Number(run[1]);
  const took = Number(run[2]) * (run[3] === 'ms' ? 0.001 : run[3] === 'm' ? 60 : 1);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1).reduce((s, n) => s + Number(n), 0) ?? 0);
  return { rps: requests / took, p50: ms('50'), p99: ms('99'), cpuPerRequest: cpu / Math.max(1, requests), errors, requests, seconds: took };
}

/**
 * BENCH_SERVER_CPU_PROF=<dir>: each server writes CPU profiles to <dir>/<repute|floor> when it stops
 * (read them with bench/support/profile-summary.ts; the largest is the main thread's, the others
 * tsx's loader thread's). BENCH_NODE_ARGS="--trace-gc …" gives Node.js options to Repute's process
 * instead (to the floor's or both with BENCH_NODE_ARGS_FOR=floor|both): how the pretenuring of pg's
 * rows showed (bin/repute.mjs).
 */
const serverNodeArgs = (who: string): string[] => {
  const dir = process.env.BENCH_SERVER_CPU_PROF;
  if (process.env.BENCH_NODE_ARGS && [who, 'both'].includes(process.env.BENCH_NODE_ARGS_FOR ?? 'repute')) return process.env.BENCH_NODE_ARGS.split(' ');
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, who)}`] : [];
};

async function startRepute(databaseUrl: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...serverNodeArgs('repute'), fileURLToPath(new URL('../bin/repute.mjs', import.meta.url)), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'warn', REPUTE_WORKER: 'off',
      RATE_LIMIT_MAX: '1000000000', PORT: String(port), HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // Spawned without an IPC channel, it would outlive an interrupted bench.
  const forget = onInterrupt(() => child.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`repute serve exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 600) throw new Error('repute serve did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid!, stop: async () => { forget(); child.kill('SIGTERM'); await new Promise((resolve) => child.once('exit', resolve)); } };
}

async function startFloor(options: FloorOptions): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./support/floor-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...serverNodeArgs('floor')], env: { ...process.env, REPUTE_FLOOR_SERVER: JSON.stringify(options) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
  });
  return { url, pid: child.pid!, stop: async () => { child.send({ type: 'stop' }); await new Promise((resolve) => child.once('exit', resolve)); } };
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The body of a guest push with one stay; `tag` makes the e-mail and the booking new. */
const guestPush = (propertyId: string, tag: string) => ({
  email: `${tag}@bench.example`, property_id: propertyId, first_name: 'Anna', last_name: 'Muster',
  reservation: { external_id: `B-${tag}`, status: 'booked', check_in: '2026-12-01T00:00:00.000Z', check_out: '2026-12-04T00:00:00.000Z', channel: 'direct' },
});

const scriptDir = mkdtempSync(join(tmpdir(), 'repute-floor-'));
/** A wrk script: POST /guests, every request a new guest (prefix-n); the prefix keeps servers and rounds apart. */
function pushScript(propertyId: string, prefix: string): string {
  const [head, tail] = JSON.stringify(guestPush(propertyId, 'TAG')).split('TAG@bench.example');
  const [middle, end] = tail!.split('B-TAG');
  const lua = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  local tag = "${prefix}-" .. n
  return wrk.format(nil, "/api/v4/guests", nil, ${JSON.stringify(head)} .. tag .. "@bench.example" .. ${JSON.stringify(middle)} .. "B-" .. tag .. ${JSON.stringify(end)})
end
`;
  const file = join(scriptDir, `${prefix}.lua`);
  writeFileSync(file, lua);
  return file;
}

/** A push answer without what differs by nature between two servers (ids, times, the e-mail and booking number). */
const comparable = (text: string) => JSON.stringify(JSON.parse(text, (k, v) => (['id', 'created_at', 'updated_at', 'email', 'external_id'].includes(k) ? '…' : v)));

async function benchDialect(dialect: Dialect): Promise<string[]> {
  console.log(`\n=== ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${fmt(REVIEWS)} reviews ===`);
  const target = await benchDatabase(dialect);
  try {
    const seed = await seedReviews(target.database, { reviews: REVIEWS, groups: 5, propertiesPerGroup: 10, boundGroupShare: 0.55, days: 730 });
    await seedMentions(target.database, seed.accountId);
    const groupNodes = [seed.boundGroupId, ...seed.groups[0]!.properties];
    const deepPage = Math.min(DEEP_PAGE, Math.floor(seed.boundGroupReviews / LIMIT));
    const last = await target.database.db.selectFrom('reviews').select(['reviewed_at', 'id']).where('account_id', '=', seed.accountId)
      .where('node_id', 'in', groupNodes).orderBy('reviewed_at', 'desc').orderBy('id', 'desc').offset((deepPage - 1) * LIMIT - 1).limit(1).executeTakeFirstOrThrow();
    const cursors = cursorsFor(Buffer.from(SECRET_KEY, 'base64'));
    const reviewsBinding = listBinding(seed.accountId, '/api/v4/reviews', {});
    const paths = {
      page1: `/api/v4/reviews?limit=${LIMIT}`,
      deep: `/api/v4/reviews?limit=${LIMIT}&cursor=${cursors.seal(reviewsBinding, { time: last.reviewed_at, id: last.id })}`,
      scores: '/api/v4/analytics/scores',
      mentions: `/api/v4/insights/mentions?limit=${LIMIT}`,
    };
    const auth = { authorization: `Bearer ${seed.groupKey}` };
    const env = { DATABASE_URL: target.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', REPUTE_WORKER: 'off', RATE_LIMIT_MAX: '1000000000' };
    const captured = await captureRouteQueries(target.database, env, Object.entries(paths).map(([name, path]) => ({ name, path, headers: auth })));
    const capturedQuery = (name: string): Query => {
      const queries = captured.get(name)!;
      if (queries.length !== 1) throw new Error(`${name}: Repute ran ${queries.length} queries; the floor runs one`);
      return queries[0]!;
    };
    const deep = capturedQuery('deep');
    const keyset: [number, number] = [deep.parameters.indexOf(last.reviewed_at), deep.parameters.indexOf(last.id)];
    if (keyset.includes(-1)) throw new Error('the deep page\'s keyset is not among its parameters');
    const databaseUrl = cliDatabaseUrl(target);
    const floor = await startFloor({
      dialect, database: dialect === 'sqlite' ? target.url.slice('sqlite:'.length) : databaseUrl, key: seed.groupKey, secretKey: SECRET_KEY,
      reviewsBinding, mentionsBinding: listBinding(seed.accountId, '/api/v4/insights/mentions', {}),
      reviewsPage1: { sql: capturedQuery('page1').sql, parameters: [...capturedQuery('page1').parameters] },
      reviewsDeep: { sql: deep.sql, parameters: [...deep.parameters] }, reviewsDeepKeyset: keyset,
      mentionsPage1: { sql: capturedQuery('mentions').sql, parameters: [...capturedQuery('mentions').parameters] },
      scores: { sql: capturedQuery('scores').sql, parameters: [...capturedQuery('scores').parameters] },
      nodeId: seed.boundGroupId, accountId: seed.accountId, guestPropertyId: seed.groups[0]!.properties[0]!,
      http: args.floor === 'fastify' ? 'fastify' : 'node',
      rows: args['floor-rows'] === 'arrays' ? 'arrays' : 'objects',
    });
    const guestProperty = seed.groups[0]!.properties[0]!;
    const repute = await startRepute(databaseUrl);
    for (const server of [floor, repute]) pinServer(server.pid);
    try {
      for (const [name, path] of Object.entries(paths)) {
        const [a, b] = await Promise.all([repute, floor].map(async (s) => (await fetch(`${s.url}${path}`, { headers: auth })).text()));
        if (md5(a!) !== md5(b!)) throw new Error(`${name}: the answers differ\n  repute ${a!.slice(0, 300)}\n  floor  ${b!.slice(0, 300)}`);
        console.log(`  ${name.padEnd(9)} same answer: ${fmt(Buffer.byteLength(a!))} bytes, md5 ${md5(a!)}`);
      }
      const pushes = await Promise.all([repute, floor].map(async (s, i) => {
        const res = await fetch(`${s.url}/api/v4/guests`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(guestPush(guestProperty, `check-${i}`)) });
        return { status: res.status, body: comparable(await res.text()) };
      }));
      if (pushes[0]!.status !== 201 || pushes[1]!.status !== 201 || pushes[0]!.body !== pushes[1]!.body) {
        throw new Error(`guests: the answers differ\n  repute ${pushes[0]!.status} ${pushes[0]!.body}\n  floor  ${pushes[1]!.status} ${pushes[1]!.body}`);
      }
      console.log(`  guests    same answer (201; ids, times, e-mail and booking number aside): ${pushes[0]!.body.slice(0, 100)}…`);
      const scenarios: Array<[string, string, ((who: string, run: string) => string) | null]> = [
        ...Object.entries(paths).map(([name, path]) => [name, path, null] as [string, string, null]),
        ['guests', '/api/v4/guests', (who, run) => pushScript(guestProperty, `${dialect}-${who}-${run}`)],
      ];
      const results = new Map<string, { repute: Figures[]; floor: Figures[] }>();
      const only = args.only?.split(',');
      const chosen = scenarios.filter(([name]) => !only || only.includes(name));
      // Both servers first run each scenario unmeasured, so the rounds compare compiled code, not
      // the JIT's first seconds (which cost the larger program more).
      for (const [name, path, script] of chosen) {
        for (const [who, server] of [['floor', floor], ['repute', repute]] as const) wrk(`${server.url}${path}`, seed.groupKey, server.pid, script?.(who, 'warm-up'), WARM_UP_SECONDS);
        console.log(`    warmed up ${name}`);
      }
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [name, path, script] of chosen) {
          const r = results.get(name) ?? { repute: [], floor: [] };
          results.set(name, r);
          // Slices ABBA: the first server of each pair alternates by slice and by round.
          const runs = { floor: [] as Figures[], repute: [] as Figures[] };
          for (let slice = 0; slice < SLICES; slice++) {
            const order = (round + slice) % 2 ? [['floor', floor], ['repute', repute]] as const : [['repute', repute], ['floor', floor]] as const;
            for (const [who, server] of order) runs[who].push(wrk(`${server.url}${path}`, seed.groupKey, server.pid, script?.(who, `${round}.${slice}`)));
          }
          for (const who of ['floor', 'repute'] as const) {
            const f = combined(runs[who]);
            r[who].push(f);
            console.log(`    round ${round} ${name.padEnd(9)} ${who.padEnd(6)} ${fmt(f.rps).padStart(6)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  CPU ${fmt(f.cpuPerRequest)} µs/req${f.errors ? `  ${f.errors} errors` : ''}`);
          }
        }
      }
      const lines: string[] = [];
      for (const [name, r] of results) {
        const mean = (fs: Figures[], k: keyof Figures) => fs.reduce((s, f) => s + f[k], 0) / fs.length;
        const [rr, fr] = [mean(r.repute, 'rps'), mean(r.floor, 'rps')];
        const [rc, fc] = [mean(r.repute, 'cpuPerRequest'), mean(r.floor, 'cpuPerRequest')];
        const target = name === 'guests' ? 0.8 : 0.9;
        // Each round pairs the two servers back to back; the median of those paired ratios is what
        // an outlier round (this shared machine's speed moves by half within a run) cannot drag.
        const paired = r.repute.map((f, i) => f.rps / r.floor[i]!.rps).sort((a, b) => a - b);
        const median = paired.length % 2 ? paired[(paired.length - 1) / 2]! : (paired[paired.length / 2 - 1]! + paired[paired.length / 2]!) / 2;
        lines.push(`[${dialect}] ${name.padEnd(9)} floor ${fmt(fr).padStart(6)} req/s (p50 ${mean(r.floor, 'p50').toFixed(2)}, p99 ${mean(r.floor, 'p99').toFixed(2)} ms, ${fmt(fc)} µs CPU/req)  `
          + `repute ${fmt(rr).padStart(6)} req/s (p50 ${mean(r.repute, 'p50').toFixed(2)}, p99 ${mean(r.repute, 'p99').toFixed(2)} ms, ${fmt(rc)} µs CPU/req)  `
          + `ratio ${(rr / fr).toFixed(2)} (target ≥ ${target}) ${rr / fr >= target ? 'ok' : 'MISSED'}; median of the rounds' ratios ${median.toFixed(2)} `
          + `(${paired.map((x) => x.toFixed(2)).join(' ')}); CPU floor/repute ${(fc / rc).toFixed(2)}`);
      }
      return lines;
    } finally {
      await repute.stop();
      await floor.stop();
    }
  } finally {
    await target.drop();
  }
}

ensureWrk();
const summary: string[] = [];
for (const dialect of dialects) summary.push(...(await benchDialect(dialect)));
console.log(`\nsummary (mean of ${ROUNDS} rounds of ${SECONDS} s per server in ${SLICES} interleaved slices, wrk -t1 -c${CONNECTIONS}${PIN ? `, servers on CPU ${SERVER_CPU}, wrk on ${LOAD_CPUS}` : ""})\n${summary.join('\n')}`);
process.exit(0);
