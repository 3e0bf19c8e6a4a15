// Benchmark: the read path. GET /reviews (page 1, 20,000 pages deep, filtered by platform + rating_max
// + replied, and a sync page with sort=updated_at&updated_since) and GET /analytics/scores
// over real HTTP against a baseline route in the same server process that runs the same page query
// directly (no auth, scoping, rate limit or cursor handling; same response serialiser), on SQLite and PostgreSQL.
//   node --import tsx bench/reviews.ts [--reviews 1000000] [--seconds 3] [--rounds 8] [--warmup 1]
//                                      [--connections 16] [--db sqlite|postgres|both]
// Data: one account, root → 5 groups → 10 properties each, N reviews over 2 years and 4 platforms,
// written straight into a fresh schema, with their review_stats, then ANALYZEd. The key is bound to
// the first group, which holds 55% of the reviews so that page 20,000 (rows 499,976–500,000) exists.
// The server runs in a child process (its RSS is its own); this process drives it with an undici
// Pool. PostgreSQL needs TEST_DATABASE_URL (a schema of its own, dropped afterwards).
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../src/context.ts';
import type { Dialect } from '../src/db/connect.ts';
import { subtreeShape, type SubtreeShape } from '../src/db/subtree-page.ts';
import { subtreeScope } from '../src/access/principal.ts';
import { cursorsFor, listBinding } from '../src/http/pagination.ts';
import { reviewPageQuery } from '../src/modules/reviews/repository.ts';
import { Review } from '../src/modules/reviews/schemas.ts';
import { SECRET_KEY, type TestDatabase } from '../test/support/app.ts';
import { benchDatabase, isInterrupted, onInterrupt } from './support/interrupt.ts';
import { seedMentions, seedReviews, type SeedResult } from './support/data.ts';
import { captureRouteQueries, describeQuery, explain, type Query } from './support/explain.ts';
import { getJson, runLoad, type LoadFigures, type Scenario } from './support/load.ts';
import { startChildServer } from './support/server.ts';

const LIMIT = 25;
const DEEP_PAGE = 20_000;
const BASELINE_PATH = '/bench/baseline';

interface BaselineParams {
  key: string;
}

/**
 * Bench-only route, registered in the server process beside the real ones: the page query the
 * repository builds for the key's scope (page 1, limit 25), compiled once at start, run through the
 * app's own database handle, and its rows returned as JSON through the same response serialiser
 * (fast-json-stringify of the Review schema): what the route adds on top is exactly auth, scoping,
 * rate limit, cursor handling and the row mapping.
 */
export async function registerBenchRoutes(app: FastifyInstance, ctx: AppContext, params: BaselineParams): Promise<void> {
  const principal = await ctx.principals.resolve(params.key);
  if (!principal) throw new Error('baseline: the bench key does not resolve');
  const query = reviewPageQuery(ctx.db, subtreeScope(principal), null, LIMIT);
  app.get(BASELINE_PATH, { schema: { response: { 200: Type.Array(Review) } } }, async () => (await ctx.db.executeQuery(query)).rows);
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const MB = 1024 * 1024;

interface Options {
  reviews: number;
  seconds: number;
  rounds: number;
  warmup: number;
  connections: number;
  dialects: Dialect[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      reviews: { type: 'string', default: '1000000' }, seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '8' }, warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '16' }, db: { type: 'string', default: 'both' },
    },
  });
  const db = values.db!;
  if (!['sqlite', 'postgres', 'both'].includes(db)) throw new Error('--db must be sqlite, postgres or both');
  const dialects: Dialect[] = db === 'both' ? ['sqlite', 'postgres'] : [db as Dialect];
  if (dialects.includes('postgres') && !process.env.TEST_DATABASE_URL) {
    throw new Error('PostgreSQL needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test), or pass --db sqlite');
  }
  return {
    reviews: Number(values.reviews), seconds: Number(values.seconds), rounds: Number(values.rounds),
    warmup: Number(values.warmup), connections: Number(values.connections), dialects,
  };
}

interface Result {
  dialect: Dialect;
  figures: Map<string, LoadFigures>;
  rssMb: number;
  deepPage: number;
  groupReviews: number;
  shape: SubtreeShape;
}

async function benchDialect(dialect: Dialect, opts: Options): Promise<Result> {
  const title = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  console.log(`\n=== ${title}: ${fmt(opts.reviews)} reviews ===`);
  const target: TestDatabase = await benchDatabase(dialect);
  try {
    let lastShown = 0;
    const seed: SeedResult = await seedReviews(target.database, {
      reviews: opts.reviews, groups: 5, propertiesPerGroup: 10, boundGroupShare: 0.55, days: 730,
      progress: (n) => {
        if (n - lastShown >= 250_000 || n === opts.reviews) {
          lastShown = n;
          process.stdout.write(`  seeding: ${fmt(n)} reviews\r`);
        }
      },
    });
    // Mentions for the plans of the mention filters (about one per four reviews).
    await seedMentions(target.database, seed.accountId);
    console.log(`  seeded ${fmt(opts.reviews)} reviews (+ review_stats, indexes, ANALYZE, mentions) in ${seed.seconds.toFixed(1)} s; `
      + `the key's group (10 properties) holds ${fmt(seed.boundGroupReviews)}`);

    // Page 20,000 needs 500,000 rows in the group; with fewer, the deepest full page is used (and said).
    const deepPage = Math.min(DEEP_PAGE, Math.floor(seed.boundGroupReviews / LIMIT));
    if (deepPage < DEEP_PAGE) console.log(`  NOTE: the group holds ${fmt(seed.boundGroupReviews)} reviews: the deep page is page ${fmt(deepPage)}, the deepest full one`);
    const groupNodes = [seed.boundGroupId, ...seed.groups[0]!.properties];
    const inGroup = () => target.database.db.selectFrom('reviews').select(['reviewed_at', 'id'])
      .where('account_id', '=', seed.accountId).where('node_id', 'in', groupNodes)
      .orderBy('reviewed_at', 'desc').orderBy('id', 'desc');
    const last = (await inGroup().offset((deepPage - 1) * LIMIT - 1).limit(1).executeTakeFirstOrThrow());
    const firstOfDeep = (await inGroup().offset((deepPage - 1) * LIMIT).limit(1).executeTakeFirstOrThrow());
    // Cursors are bound to their list (account, route) under the server's key, which the bench gives it.
    const deepCursor = cursorsFor(Buffer.from(SECRET_KEY, 'base64'))
      .seal(listBinding(seed.accountId, '/api/v4/reviews', {}), { time: last.reviewed_at, id: last.id });

    const env = {
      DATABASE_URL: target.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', REPUTE_WORKER: 'off',
      RATE_LIMIT_MAX: '1000000000',
    };
    const auth = { authorization: `Bearer ${seed.groupKey}` };
    // The sync page starts at the group's median change stamp: half the group's reviews lie after it.
    const median = await target.database.db.selectFrom('reviews').select('updated_at')
      .where('account_id', '=', seed.accountId).where('node_id', 'in', groupNodes)
      .orderBy('updated_at').offset(Math.floor(seed.boundGroupReviews / 2)).limit(1).executeTakeFirstOrThrow();
    const paths = {
      page1: `/api/v4/reviews?limit=${LIMIT}`,
      deep: `/api/v4/reviews?limit=${LIMIT}&cursor=${deepCursor}`,
      filtered: `/api/v4/reviews?limit=${LIMIT}&platform=booking&rating_max=2&replied=false`,
      sync: `/api/v4/reviews?limit=${LIMIT}&sort=updated_at&updated_since=${encodeURIComponent(median.updated_at)}`,
      analytics: '/api/v4/analytics/scores',
      analyticsMonth: `/api/v4/analytics/scores?from=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}`,
      mentionsTopic: '/api/v4/insights/mentions?limit=25&topic_id=TOPIC',
      mentionsNegative: `/api/v4/insights/mentions?limit=25&sentiment=negative&from=${encodeURIComponent(new Date(Date.now() - 90 * 86_400_000).toISOString())}`,
    };
    const topic = await target.database.db.selectFrom('mentions').select('canonical_label_id').where('account_id', '=', seed.accountId).limit(1).executeTakeFirstOrThrow();
    paths.mentionsTopic = paths.mentionsTopic.replace('TOPIC', topic.canonical_label_id);

    const server = await startChildServer({
      databaseUrl: target.url, schema: target.schema && dialect === 'postgres' ? target.schema : null, env,
      routesModule: import.meta.url, params: { key: seed.groupKey } satisfies BaselineParams,
    });
    const forgetServer = onInterrupt(() => server.stop());
    let rssMb: number;
    let figures: Map<string, LoadFigures>;
    try {
      // Every answer is checked once before the load: status, page size, and the deep page's first row.
      const p1 = await getJson(server.url, paths.page1, auth);
      const deep = await getJson(server.url, paths.deep, auth);
      const base = await getJson(server.url, BASELINE_PATH);
      const scores = await getJson(server.url, paths.analytics, auth);
      const filtered = await getJson(server.url, paths.filtered, auth);
      const sync = await getJson(server.url, paths.sync, auth);
      const bad = (filtered.body.data ?? []).find((r: { platform: string; rating: number | null; owner_reply: string | null }) =>
        r.platform !== 'booking' || r.rating === null || r.rating > 2 || r.owner_reply !== null);
      if (filtered.status !== 200 || filtered.body.data.length !== LIMIT || bad) throw new Error(`filtered page: ${filtered.status}, ${filtered.body.data?.length} rows${bad ? `, ${JSON.stringify(bad).slice(0, 200)}` : ''}`);
      const stamps = (sync.body.data ?? []).map((r: { updated_at: string }) => r.updated_at);
      if (sync.status !== 200 || stamps.length !== LIMIT || stamps.some((u: string, i: number) => u < median.updated_at || (i > 0 && u < stamps[i - 1]))) {
        throw new Error(`sync page: ${sync.status}, ${stamps.length} rows, stamps ${stamps.slice(0, 3).join(', ')} (from ${median.updated_at})`);
      }
      if (p1.status !== 200 || p1.body.data.length !== LIMIT) throw new Error(`page 1: ${p1.status} ${JSON.stringify(p1.body).slice(0, 200)}`);
      if (deep.status !== 200 || deep.body.data[0]?.id !== firstOfDeep.id) throw new Error(`deep page: ${deep.status}, first id ${deep.body.data?.[0]?.id} ≠ ${firstOfDeep.id}`);
      if (base.status !== 200 || base.body[0]?.id !== p1.body.data[0].id) throw new Error(`baseline: ${base.status} answers another first row`);
      if (scores.status !== 200) throw new Error(`analytics: ${scores.status} ${JSON.stringify(scores.body).slice(0, 200)}`);
      console.log(`  checked: page 1 and page ${fmt(deepPage)} (first id = row ${fmt((deepPage - 1) * LIMIT + 1)} of the group), baseline (same first row), `
        + `analytics (total_reviews ${fmt(scores.body.total_reviews)}, overall_score ${scores.body.overall_score})`);

      const scenarios: Scenario[] = [
        { name: 'baseline', path: BASELINE_PATH },
        { name: 'reviews page 1', path: paths.page1, headers: auth },
        { name: `reviews page ${fmt(deepPage)}`, path: paths.deep, headers: auth },
        { name: 'analytics scores', path: paths.analytics, headers: auth },
        { name: 'reviews filtered', path: paths.filtered, headers: auth },
        { name: 'reviews sync page', path: paths.sync, headers: auth },
      ];
      console.log(`  load: ${opts.connections} connections, ${opts.rounds} rounds × ${opts.seconds} s per scenario (after ${opts.warmup} s warm-up each), rounds interleaved`);
      figures = await runLoad(server.url, scenarios, {
        connections: opts.connections, seconds: opts.seconds, warmupSeconds: opts.warmup, rounds: opts.rounds,
        cpuMicros: () => server.cpuMicros(),
        onRound: (name, round, f) => console.log(`    round ${round} ${name.padEnd(20)} ${fmt(f.rps).padStart(7)} req/s  p50 ${f.p50.toFixed(2)} ms  server CPU ${fmt(f.cpuPerRequest)} µs/req`),
      });
      rssMb = (await server.memory()).rss / MB;
    } finally {
      forgetServer();
      await server.stop();
    }

    console.log(`\n  ${'scenario'.padEnd(22)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'CPU µs/req'.padStart(11)} ${'requests'.padStart(9)} errors`);
    for (const [name, f] of figures) {
      console.log(`  ${name.padEnd(22)} ${fmt(f.rps).padStart(8)} ${f.p50.toFixed(2).padStart(8)} ${f.p90.toFixed(2).padStart(8)} ${f.p99.toFixed(2).padStart(8)} ${fmt(f.cpuPerRequest).padStart(11)} ${fmt(f.requests).padStart(9)} ${f.errors}${f.firstError ? ` (first: ${f.firstError})` : ''}`);
    }

    // The plans, on the same data: what the route ran (captured), and the other shape for comparison.
    const captured = await captureRouteQueries(target.database, env, [
      { name: 'page1', path: paths.page1, headers: auth },
      { name: 'deep', path: paths.deep, headers: auth },
      { name: 'analytics', path: paths.analytics, headers: auth },
      { name: 'filtered', path: paths.filtered, headers: auth },
      { name: 'sync', path: paths.sync, headers: auth },
      { name: 'analyticsMonth', path: paths.analyticsMonth, headers: auth },
      { name: 'mentionsTopic', path: paths.mentionsTopic, headers: auth },
      { name: 'mentionsNegative', path: paths.mentionsNegative, headers: auth },
    ]);
    const principalScope = { accountId: seed.accountId, nodes: groupNodes, wholeAccount: false, accountNodes: 1 + 5 + 50 };
    const shape = subtreeShape(principalScope);
    const other: SubtreeShape = shape === 'per-node' ? 'account-nodes' : 'per-node';
    const after = { time: last.reviewed_at, id: last.id };
    const plans: [string, Query][] = [
      [`GET /reviews page 1 (as run by the route: shape ${shape})`, captured.get('page1')!.at(-1)!],
      [`GET /reviews page ${fmt(deepPage)} (as run by the route: shape ${shape})`, captured.get('deep')!.at(-1)!],
      ['GET /reviews?platform=booking&rating_max=2&replied=false (as run by the route)', captured.get('filtered')!.at(-1)!],
      ['GET /reviews?sort=updated_at&updated_since=… (as run by the route)', captured.get('sync')!.at(-1)!],
      ...captured.get('analytics')!.map((q, i) => [`GET /analytics/scores (as run by the route${captured.get('analytics')!.length > 1 ? `, query ${i + 1}` : ''})`, q] as [string, Query]),
      ...captured.get('analyticsMonth')!.map((q, i) => [`GET /analytics/scores?from=<30 days ago> (as run by the route, query ${i + 1})`, q] as [string, Query]),
      ['GET /insights/mentions?topic_id=… (as run by the route)', captured.get('mentionsTopic')!.at(-1)!],
      ['GET /insights/mentions?sentiment=negative&from=<90 days ago> (as run by the route)', captured.get('mentionsNegative')!.at(-1)!],
      [`page 1, shape ${other} (not chosen for this scope)`, reviewPageQuery(target.database.db, principalScope, null, LIMIT, other)],
      [`page ${fmt(deepPage)}, shape ${other} (not chosen for this scope)`, reviewPageQuery(target.database.db, principalScope, after, LIMIT, other)],
    ];
    const sameSql = reviewPageQuery(target.database.db, principalScope, null, LIMIT).sql === captured.get('page1')!.at(-1)!.sql;
    console.log(`\n  baseline runs the route's page-1 SQL: ${sameSql ? 'yes (same text, compiled once at start)' : 'NO'}`);
    for (const [name, query] of plans) {
      console.log(`\n  EXPLAIN ${dialect === 'sqlite' ? 'QUERY PLAN' : '(ANALYZE, BUFFERS)'}: ${name}\n    ${describeQuery(query)}`);
      for (const line of await explain(target.database, query)) console.log(`      ${line}`);
    }
    return { dialect, figures, rssMb, deepPage, groupReviews: seed.boundGroupReviews, shape };
  } finally {
    await target.drop();
  }
}

function summary(results: Result[]): void {
  console.log('\n=== Figures (ratios within the same run; 2 shared cores, so numbers are noisy) ===');
  for (const r of results) {
    const f = (name: string) => r.figures.get(name)!;
    const base = f('baseline');
    const p1 = f('reviews page 1');
    const deep = f(`reviews page ${fmt(r.deepPage)}`);
    const scores = f('analytics scores');
    const filtered = f('reviews filtered');
    const sync = f('reviews sync page');
    const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    const rows: [string, string, string, boolean][] = [
      ['GET /reviews throughput / baseline', `${fmt(p1.rps)} / ${fmt(base.rps)} req/s`, (p1.rps / base.rps).toFixed(2) + ' (≥ 0.75)', p1.rps / base.rps >= 0.75],
      [`page ${fmt(r.deepPage)} / page 1 throughput`, `${fmt(deep.rps)} / ${fmt(p1.rps)} req/s`, (deep.rps / p1.rps).toFixed(2) + ' (≥ 0.9)', deep.rps / p1.rps >= 0.9],
      ['filtered page / page 1 throughput', `${fmt(filtered.rps)} / ${fmt(p1.rps)} req/s`, (filtered.rps / p1.rps).toFixed(2) + ' (≥ 0.5)', filtered.rps / p1.rps >= 0.5],
      ['sync page / page 1 throughput', `${fmt(sync.rps)} / ${fmt(p1.rps)} req/s`, (sync.rps / p1.rps).toFixed(2) + ' (≥ 0.5)', sync.rps / p1.rps >= 0.5],
      ['analytics p50 / reviews p50', `${scores.p50.toFixed(2)} / ${p1.p50.toFixed(2)} ms`, (scores.p50 / p1.p50).toFixed(2) + ' (≤ 2)', scores.p50 / p1.p50 <= 2],
      ['server RSS after the load', `${r.rssMb.toFixed(0)} MB`, '(≤ 300 MB)', r.rssMb <= 300],
    ];
    console.log(`\n  ${r.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (key's group: ${fmt(r.groupReviews)} reviews, list shape ${r.shape})`);
    for (const [name, values, ratio, ok] of rows) console.log(`    ${name.padEnd(36)} ${values.padEnd(26)} ${ratio.padEnd(16)} ${check(ok)}`);
    // The same comparisons by each scenario's best round and by the server's CPU time per request,
    // which a busy machine disturbs less than the totals.
    console.log(`    best rounds (req/s): baseline ${fmt(base.bestRps)}, page 1 ${fmt(p1.bestRps)}, page ${fmt(r.deepPage)} ${fmt(deep.bestRps)} `
      + `→ page 1/baseline ${(p1.bestRps / base.bestRps).toFixed(2)}, deep/page 1 ${(deep.bestRps / p1.bestRps).toFixed(2)}`);
    console.log(`    server CPU per request (µs): baseline ${fmt(base.cpuPerRequest)}, page 1 ${fmt(p1.cpuPerRequest)}, `
      + `page ${fmt(r.deepPage)} ${fmt(deep.cpuPerRequest)}, analytics ${fmt(scores.cpuPerRequest)} → baseline/page 1 `
      + `${(base.cpuPerRequest / p1.cpuPerRequest).toFixed(2)}, page 1/deep ${(p1.cpuPerRequest / deep.cpuPerRequest).toFixed(2)}`);
  }
}

async function main(): Promise<void> {
  const opts = options();
  const results: Result[] = [];
  for (const dialect of opts.dialects) results.push(await benchDialect(dialect, opts));
  summary(results);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Interrupted, the clean-up exits (bench/support/interrupt.ts); the failures it causes are not errors.
  main().then(() => isInterrupted() || process.exit(0), (error) => {
    if (isInterrupted()) return;
    console.error(error);
    process.exit(1);
  });
}
