// Benchmark: POST /guests over real HTTP against a raw driver upsert of the same kind of rows, with
// N guests (default 1,000,000, each with one stay) already stored, on SQLite and on PostgreSQL.
//   node --import tsx bench/guests.ts [--guests 1000000] [--requests 20000] [--concurrency 16] [--rounds 2]
//                                     [--dialect sqlite|postgres] [--profile DIR]
// Two scenarios: new guests with a stay (201), and updates of stored stays (200, booked → checked_out).
// HTTP: the server runs in a child process (`repute serve` code path, logs off, worker off); this
// process drives it through an undici Pool of --concurrency connections on 127.0.0.1.
// Baseline, in this process: per push one transaction of two upserts (guest, then stay) through the
// driver with prepared statements: better-sqlite3 (sequential: one writer) or pg named statements on
// as many connections as the server's pool (10). Both sides alternate in rounds so drift hits them alike.
// PostgreSQL needs TEST_DATABASE_URL (a schema of its own, dropped afterwards).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { Dialect } from '../src/db/connect.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createKey } from '../src/modules/keys/service.ts';
import { createNode } from '../src/modules/nodes/service.ts';
import { SECRET_KEY, type TestDatabase } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';
import { seedGuests, type Row, rowOf, baselineSqlite, baselinePostgres } from './guests-baseline.ts';

const { values: args } = parseArgs({
  options: {
    guests: { type: 'string', default: '1000000' }, requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '16' }, rounds: { type: 'string', default: '2' }, dialect: { type: 'string' },
    serve: { type: 'string' }, profile: { type: 'string' },
  },
});

const SERVER_POOL = 10;

interface Figures {
  rate: number;
  p50: number;
  p99: number;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

function figures(latencies: number[], seconds: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rate: latencies.length / seconds, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

/** Sends rows[i] for every i in the range through the pool, `concurrency` at a time; returns latencies (ms). */
async function http(pool: Pool, key: string, rows: Row[], concurrency: number, expect: number): Promise<number[]> {
  const latencies: number[] = [];
  // Serialised up front: the client's own work is not what is measured.
  const bodies = rows.map((row) => JSON.stringify(row.body));
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const start = performance.now();
      const r = await pool.request({
        method: 'POST', path: '/api/v4/guests', body,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      const text = await r.body.text();
      latencies.push(performance.now() - start);
      if (r.statusCode !== expect) throw new Error(`push answered ${r.statusCode}, expected ${expect}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await fn();
  return [result, (performance.now() - start) / 1000];
}

function childUrl(db: TestDatabase): string {
  if (db.dialect === 'sqlite') return db.url;
  const url = new URL(db.url);
  url.searchParams.set('options', `-c search_path=${db.schema}`);
  return url.toString();
}

async function startChild(db: TestDatabase): Promise<{ child: ChildProcess; url: string }> {
  // --profile DIR: a V8 CPU profile of the server process, to see where a push's time goes.
  const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
  const child = fork(new URL(import.meta.url).pathname, ['--serve', childUrl(db)], { execArgv: ['--import', 'tsx', ...profile] });
  const [message] = (await once(child, 'message')) as [{ url: string }];
  return { child, url: message.url };
}

async function runDialect(dialect: Dialect): Promise<void> {
  const guests = Number(args.guests);
  const requests = Number(args.requests);
  const concurrency = Number(args.concurrency);
  const rounds = Number(args.rounds);
  const db = await benchDatabase(dialect);
  try {
    const account = await createAccount(db.database.db, { name: 'Bench Hotels' });
    const root = await createNode(db.database.db, account.id, { name: 'Bench Hotels', type: 'account', parent_id: null });
    const properties: string[] = [];
    for (let r = 0; r < 5; r++) {
      const region = await createNode(db.database.db, account.id, { name: `Region ${r + 1}`, type: 'region', parent_id: root.id });
      for (let p = 0; p < 10; p++) properties.push((await createNode(db.database.db, account.id, { name: `Hotel ${r + 1}.${p + 1}`, type: 'property', parent_id: region.id })).id);
    }
    const { key } = await createKey(db.database.db, account.id, { node_id: root.id, scopes: ['guests:write'] });
    const seedSeconds = await seedGuests(db, account.id, properties, guests);
    console.log(`[${dialect}] seeded ${guests.toLocaleString('en')} guests with one stay each in ${seedSeconds.toFixed(1)} s`);

    // Row sets: disjoint new e-mails for each side; updates pick seeded stays (each used once).
    const perRound = Math.floor(requests / rounds);
    const make = (kind: 'new' | 'update', side: 'http' | 'base', round: number) => Array.from({ length: perRound }, (_, i) => {
      const n = round * perRound + i;
      return kind === 'new'
        ? rowOf(properties, `${side}-new-${n}`, null)
        : rowOf(properties, null, (side === 'http' ? 2 * n : 2 * n + 1) * 7919 % guests);
    });
    const { child, url } = await startChild(db);
    const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
    // The raw side gets as many PostgreSQL connections as the server's pool has (connect()'s default,
    // which `repute serve` uses): both are then limited by the same number of open transactions.
    const baseline = dialect === 'sqlite' ? baselineSqlite(db) : baselinePostgres(db, SERVER_POOL);
    try {
      // Warm-up both paths (JIT, prepared statements, caches) on rows outside the measured sets.
      await http(pool, key, Array.from({ length: 500 }, (_, i) => rowOf(properties, `warm-http-${i}`, null)), concurrency, 201);
      await baseline.run(Array.from({ length: 500 }, (_, i) => rowOf(properties, `warm-base-${i}`, null)));

      const acc = { new: { http: [] as number[], base: [] as number[], hs: 0, bs: 0 }, update: { http: [] as number[], base: [] as number[], hs: 0, bs: 0 } };
      for (let round = 0; round < rounds; round++) {
        for (const kind of ['new', 'update'] as const) {
          const [h, hs] = await timed(() => http(pool, key, make(kind, 'http', round), concurrency, kind === 'new' ? 201 : 200));
          const [b, bs] = await timed(() => baseline.run(make(kind, 'base', round)));
          acc[kind].http.push(...h);
          acc[kind].base.push(...b);
          acc[kind].hs += hs;
          acc[kind].bs += bs;
        }
      }
      for (const kind of ['new', 'update'] as const) {
        const h = figures(acc[kind].http, acc[kind].hs);
        const b = figures(acc[kind].base, acc[kind].bs);
        const label = kind === 'new' ? 'new guest + stay' : 'stay update     ';
        console.log(`[${dialect}] ${label}  HTTP ${h.rate.toFixed(0).padStart(6)}/s p50 ${h.p50.toFixed(2)} ms p99 ${h.p99.toFixed(2)} ms | `
          + `raw upsert ${b.rate.toFixed(0).padStart(6)}/s p50 ${b.p50.toFixed(2)} ms p99 ${b.p99.toFixed(2)} ms | ratio ${(h.rate / b.rate).toFixed(2)} (target ≥ 0.50)`);
      }
    } finally {
      await pool.close();
      await baseline.close();
      child.disconnect();
      await once(child, 'exit');
    }
  } finally {
    await db.drop();
  }
}

async function main(): Promise<void> {
  const dialects: Dialect[] = args.dialect ? [args.dialect as Dialect] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  console.log(`guests: ${Number(args.guests).toLocaleString('en')} stored, ${args.requests} pushes per scenario and side, concurrency ${args.concurrency}`);
  for (const dialect of dialects) await runDialect(dialect);
}

if (args.serve !== undefined) {
  // Child mode: serve the given database until the parent disconnects.
  const { startServer } = await import('../src/process/serve.ts');
  const { loadConfig } = await import('../src/config.ts');
  const server = await startServer(loadConfig({
    DATABASE_URL: args.serve, REPUTE_SECRET_KEY: SECRET_KEY, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    REPUTE_WORKER: 'off', RATE_LIMIT_MAX: '1000000000',
  }));
  process.send!({ url: server.url });
  process.on('disconnect', () => void server.stop().then(() => process.exit(0)));
} else {
  await main();
}
