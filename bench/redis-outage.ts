// Benchmark: a rate-limited request (GET /api/v4/reviews) while Redis is up, down (the port closes
// and refuses connections), black-holed (connections accepted, never answered) and up again. The
// server runs in a child process with REDIS_URL pointing at a loopback proxy in front of the real
// Redis, which plays each outage. Prints p50/p99 of each phase, the share of its requests counted
// in Redis (100% when windows are shared, 0% on the local fallback) and the rise over "up"
// (target: p50 rises by less than 5 ms while Redis is down).
//   node --import tsx bench/redis-outage.ts [--seconds 10] [--connections 4]
// Needs REDIS_URL (default redis://127.0.0.1:6379). Loopback only; the database is a SQLite file.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { SECRET_KEY } from '../test/support/app.ts';
import { benchApp } from './support/interrupt.ts';
import { createKey, createReview, createTree } from '../test/support/factories.ts';
import { startTcpProxy, type ProxyMode } from '../test/support/tcp-proxy.ts';
import { getJson, runLoad } from './support/load.ts';
import { startChildServer } from './support/server.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '4' } } });
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

const t = await benchApp('sqlite');
const tree = await createTree(t);
const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
for (let i = 0; i < 25; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!);
const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
const server = await startChildServer({
  databaseUrl: t.testDb.url,
  env: { REPUTE_SECRET_KEY: SECRET_KEY, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_MAX: '1000000000', RATE_LIMIT_WINDOW_S: '60', LOG_LEVEL: 'silent' },
});
const scenario = { name: 'GET /api/v4/reviews?limit=10', path: '/api/v4/reviews?limit=10', headers: { authorization: `Bearer ${key}` } };
const probe = await getJson(server.url, scenario.path, scenario.headers);
if (probe.status !== 200) throw new Error(`probe answered ${probe.status}: ${JSON.stringify(probe.body)}`);

// The windows of the key in Redis: how many of a phase's requests Redis counted (shared windows).
const keyId = (await t.ctx.db.selectFrom('api_keys').select('id').executeTakeFirstOrThrow()).id;
const direct = new Redis(redis.toString(), { lazyConnect: true });
await direct.connect();
const countedInRedis = async (): Promise<number> => {
  const keys = await direct.keys(`repute:rl:${keyId}:*`);
  const values = keys.length ? await direct.mget(...keys) : [];
  return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
};

const phases: Array<{ name: string; mode: ProxyMode; warmup: number }> = [
  { name: 'Redis up', mode: 'forward', warmup: 2 },
  // No warm-up after a switch: the first requests after Redis goes away (or comes back) count.
  { name: 'Redis down (port closed)', mode: 'refuse', warmup: 0 },
  { name: 'Redis up again', mode: 'forward', warmup: 0 },
  { name: 'Redis black-holed', mode: 'blackhole', warmup: 0 },
  { name: 'Redis up again', mode: 'forward', warmup: 0 },
];
console.log(`redis-outage: ${scenario.name}, ${connections} connections, ${seconds} s per phase`);
const results: Array<{ name: string; p50: number; p99: number; rps: number; errors: number; shared: number }> = [];
for (const phase of phases) {
  proxy.mode(phase.mode);
  if (phase.warmup > 0) await runLoad(server.url, [scenario], { connections, seconds: phase.warmup, warmupSeconds: 0, rounds: 1 });
  const before = await countedInRedis();
  const figures = (await runLoad(server.url, [scenario], { connections, seconds, warmupSeconds: 0, rounds: 1 })).get(scenario.name)!;
  const shared = ((await countedInRedis()) - before) / figures.requests;
  results.push({ name: phase.name, p50: figures.p50, p99: figures.p99, rps: figures.rps, errors: figures.errors, shared });
  if (figures.errors > 0) console.log(`  ${phase.name}: ${figures.errors} errors, first: ${figures.firstError}`);
}
const up = results[0]!;
for (const r of results) {
  const rise = r === up ? '' : `  (p50 ${r.p50 - up.p50 >= 0 ? '+' : ''}${(r.p50 - up.p50).toFixed(2)} ms, p99 ${r.p99 - up.p99 >= 0 ? '+' : ''}${(r.p99 - up.p99).toFixed(2)} ms)`;
  console.log(`${r.name.padEnd(26)} p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  ${r.rps.toFixed(0).padStart(6)} req/s  ${(100 * r.shared).toFixed(0).padStart(3)}% counted in Redis${rise}`);
}
const down = results[1]!;
console.log(`p50 rise while Redis is down: ${(down.p50 - up.p50).toFixed(2)} ms (target < 5 ms): ${down.p50 - up.p50 < 5 ? 'met' : 'NOT met'}`);

direct.disconnect();
await server.stop();
await proxy.close();
await t.close();
