// Benchmark: the dashboard's pages (issue 12). Prints, per database:
//   - the p50 server time (Fastify's reply.elapsedTime: arrival to response written) and round trip
//     of the overview, the inbox, analytics and insights (signed in), each against an API route over
//     the same data in the same run and process (the inbox against GET /api/v4/reviews?limit=25: the
//     same 25 reviews);
//   - every page's weight: its HTML plus the CSS and JS it loads from /assets (uncompressed), and
//     that no page refers to another host.
//   node --import tsx bench/dashboard.ts [--reviews 1000000] [--requests 300] [--db sqlite|postgres|both] [--only inbox]
// Data: bench/support/data.ts (one account, root → 5 groups → 10 properties, N reviews over 2 years
// with their review_stats). The user is an owner of the whole account (the widest aggregate).
// The server is `repute serve`'s app in a child process (bench/support/server.ts), so the load
// generator never shares its event loop; it records each request's server time (server-times.ts).
// Requests are sequential over real HTTP (keep-alive), interleaved page/API, after a warm-up.
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import type { Dialect } from '../src/db/connect.ts';
import { createUser } from '../src/modules/users/service.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';
import { seedReviews } from './support/data.ts';
import { startChildServer } from './support/server.ts';

const { values } = parseArgs({
  options: {
    reviews: { type: 'string', default: '100000' }, requests: { type: 'string', default: '300' }, db: { type: 'string', default: 'both' },
    // Time only the pages whose label starts with this (e.g. --only inbox, for a CPU profile of one page).
    only: { type: 'string', default: '' },
  },
});
const REVIEWS = Number(values.reviews);
const REQUESTS = Number(values.requests);
const dialects: Dialect[] = values.db === 'both' ? (process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) : [values.db as Dialect];
const PASSWORD = 'bench password 1234';
const PAGES = ['/login', '/', '/reviews', '/analytics', '/insights', '/surveys', '/account', '/settings/api', '/settings/webhooks', '/settings/users'];

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function run(dialect: Dialect): Promise<void> {
  const testDb = await benchDatabase(dialect);
  const seeded = await seedReviews(testDb.database, { reviews: REVIEWS, groups: 5, propertiesPerGroup: 10, boundGroupShare: 0.55, days: 730 });
  await createUser(testDb.database.db, seeded.accountId, { email: 'bench@example.com', password: PASSWORD, role: 'owner' });
  const server = await startChildServer({
    databaseUrl: testDb.url, schema: dialect === 'postgres' ? testDb.schema : null,
    env: {
      DATABASE_URL: testDb.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', REPUTE_WORKER: 'off', RATE_LIMIT_MAX: '1000000000',
      REPUTE_ADMIN_TOKEN: ADMIN_TOKEN,
    },
    routesModule: new URL('./support/server-times.ts', import.meta.url).href,
  });
  const agent = new Agent({ connections: 1 });
  try {
    const origin = server.url.replace(/\/$/, '');
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await request(`${origin}${path}`, { dispatcher: agent, headers });
      return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
    };
    // Sign in as a browser would: the form's CSRF cookie and token, then the session cookie.
    const login = await get('/login');
    const csrfCookie = String(login.headers['set-cookie']).split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(login.body)![1]!;
    const signIn = await request(`${origin}/login`, {
      dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: token, email: 'bench@example.com', password: PASSWORD }).toString(),
    });
    await signIn.body.text();
    const session = [signIn.headers['set-cookie']].flat().map((c) => String(c).split(';')[0] ?? '').find((c) => c.startsWith('repute_session='))!;
    const cookie = `${csrfCookie}; ${session}`;
    const api = { authorization: `Bearer ${seeded.rootKey}` };

    // Each page against its baseline through the API, interleaved request by request.
    const PAIRS: Array<[string, string, string]> = [
      ['/', '/api/v4/analytics/scores', 'overview'],
      ['/reviews', '/api/v4/reviews?limit=25', 'inbox (25 reviews)'],
      ['/analytics', '/api/v4/analytics/scores', 'analytics'],
      ['/insights', '/api/v4/insights/mentions?limit=25', 'insights'],
    ];
    console.log(`[${dialect}] ${fmt(REVIEWS, 0)} reviews, ${REQUESTS} sequential requests each`);
    for (const [pagePath, apiPath, label] of PAIRS.filter(([, , label]) => label.startsWith(values.only))) {
      const page: number[] = [];
      const baseline: number[] = [];
      const WARM_UP = 30;
      for (let i = 0; i < REQUESTS + WARM_UP; i += 1) {
        let started = performance.now();
        const a = await get(pagePath, { cookie });
        const pageMs = performance.now() - started;
        started = performance.now();
        const b = await get(apiPath, api);
        const apiMs = performance.now() - started;
        if (a.status !== 200 || b.status !== 200) throw new Error(`unexpected status ${a.status} / ${b.status}`);
        if (i >= WARM_UP) {
          page.push(pageMs);
          baseline.push(apiMs);
        }
      }
      const times = JSON.parse((await get('/bench/server-times')).body) as Record<string, number[]>;
      const pageServer = times[pagePath]!.slice(WARM_UP);
      const baselineServer = times[apiPath]!.slice(WARM_UP);
      console.log(`  ${label.padEnd(20)} server time: GET ${pagePath} p50 ${fmt(p50(pageServer), 2)} ms; GET ${apiPath} p50 ${fmt(p50(baselineServer), 2)} ms; ratio ${fmt(p50(pageServer) / p50(baselineServer), 2)}`);
      console.log(`  ${''.padEnd(20)} round trip:  GET ${pagePath} p50 ${fmt(p50(page), 2)} ms; GET ${apiPath} p50 ${fmt(p50(baseline), 2)} ms; ratio ${fmt(p50(page) / p50(baseline), 2)}`);
    }

    let heaviest = 0;
    for (const path of PAGES) {
      const html = await get(path, path === '/login' ? {} : { cookie });
      if (html.status !== 200) throw new Error(`${path} answered ${html.status}`);
      const refs = [...html.body.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
      const foreign = refs.filter((r) => /^(https?:)?\/\//.test(r));
      if (foreign.length > 0) throw new Error(`${path} refers to another host: ${foreign.join(', ')}`);
      let bytes = Buffer.byteLength(html.body);
      for (const asset of refs.filter((r) => r.startsWith('/assets/'))) bytes += Buffer.byteLength((await get(asset)).body);
      heaviest = Math.max(heaviest, bytes);
      console.log(`  ${path.padEnd(20)} ${fmt(bytes / 1024)} KB (HTML + CSS + JS, uncompressed; no other host)`);
    }
    console.log(`  heaviest page ${fmt(heaviest / 1024)} KB of the 200 KB budget (ratio ${fmt(heaviest / (200 * 1024), 2)})`);
  } finally {
    await server.stop();
    await agent.close();
    await testDb.drop();
  }
}

for (const dialect of dialects) await run(dialect);
