// Benchmark: a full walk of every review of an account through the typed client
// (clients/typescript: openapi-fetch + pages() over next_cursor), on SQLite and PostgreSQL, in
// rows/s, against a plain fetch + JSON.parse loop over the same pages in the same run (the
// client's own cost; target ratio ≥ 0.8). Each walk is checked: every review exactly once.
//   node --import tsx bench/client-sync.ts [--reviews 100000] [--limit 100] [--rounds 2] [--dialect sqlite|postgres]
// The server runs in a child process (bench/support/server.ts); loopback only. PostgreSQL needs
// TEST_DATABASE_URL. (Issue 13's figure over 1,000,000 reviews with updated_since follows the
// same walk once the list takes that filter.)
import { parseArgs } from 'node:util';
import { createReputeClient, pages } from '../clients/typescript/src/index.ts';
import type { Dialect } from '../src/db/connect.ts';
import { freshDatabase, SECRET_KEY } from '../test/support/app.ts';
import { seedReviews } from './support/data.ts';
import { startChildServer } from './support/server.ts';

const { values: args } = parseArgs({
  options: {
    reviews: { type: 'string', default: '100000' }, limit: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' }, dialect: { type: 'string' },
  },
});
const REVIEWS = Number(args.reviews);
const LIMIT = Number(args.limit);
const ROUNDS = Number(args.rounds);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Walk {
  rows: number;
  seconds: number;
}

/** Every review through plain fetch and JSON.parse, page by page. */
async function plainWalk(origin: string, key: string, expected: number): Promise<Walk> {
  const seen = new Set<string>();
  const started = performance.now();
  let cursor: string | null = null;
  do {
    const url = `${origin}/api/v4/reviews?limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (!response.ok) throw new Error(`plain walk: ${response.status} ${await response.text()}`);
    const page = JSON.parse(await response.text()) as { data: { id: string }[]; next_cursor: string | null };
    for (const review of page.data) seen.add(review.id);
    cursor = page.next_cursor;
  } while (cursor !== null);
  if (seen.size !== expected) throw new Error(`plain walk saw ${seen.size} distinct reviews, expected ${expected}`);
  return { rows: seen.size, seconds: (performance.now() - started) / 1000 };
}

/** Every review through the typed client; fails on a missed or repeated review. */
async function clientWalk(origin: string, key: string, expected: number): Promise<Walk> {
  const client = createReputeClient({ baseUrl: origin, apiKey: key });
  const seen = new Set<string>();
  let rows = 0;
  const started = performance.now();
  for await (const review of pages((cursor) => client.GET('/reviews', { params: { query: { limit: LIMIT, cursor } } }))) {
    seen.add(review.id);
    rows += 1;
  }
  if (rows !== expected || seen.size !== expected) throw new Error(`client walk: ${rows} rows, ${seen.size} distinct, expected ${expected}`);
  return { rows, seconds: (performance.now() - started) / 1000 };
}

async function benchDialect(dialect: Dialect): Promise<string> {
  const target = await freshDatabase(dialect);
  try {
    const seed = await seedReviews(target.database, { reviews: REVIEWS, groups: 5, propertiesPerGroup: 10, boundGroupShare: 0.55, days: 730 });
    const server = await startChildServer({
      databaseUrl: target.url, schema: dialect === 'postgres' ? target.schema : null,
      env: { DATABASE_URL: target.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', REPUTE_WORKER: 'off', RATE_LIMIT_MAX: '1000000000' },
    });
    try {
      const plain: Walk[] = [];
      const typed: Walk[] = [];
      // Alternated, so drift on this shared machine falls on both alike.
      for (let round = 0; round < ROUNDS; round++) {
        plain.push(await plainWalk(server.url, seed.rootKey, REVIEWS));
        typed.push(await clientWalk(server.url, seed.rootKey, REVIEWS));
      }
      const rate = (walks: Walk[]) => Math.max(...walks.map((w) => w.rows / w.seconds));
      const [c, p] = [rate(typed), rate(plain)];
      return `[${dialect}] full walk of ${fmt(REVIEWS)} reviews (limit ${LIMIT}, best of ${ROUNDS}): typed client ${fmt(c)} rows/s vs plain fetch loop ${fmt(p)} rows/s: `
        + `ratio ${(c / p).toFixed(2)} (target ≥ 0.8); every review seen exactly once`;
    } finally {
      await server.stop();
    }
  } finally {
    await target.drop();
  }
}

const dialects: Dialect[] = args.dialect ? [args.dialect as Dialect] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const lines: string[] = [];
for (const dialect of dialects) {
  const line = await benchDialect(dialect);
  console.log(line);
  lines.push(line);
}
console.log(`\nsummary\n${lines.join('\n')}`);
