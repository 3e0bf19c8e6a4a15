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
import { ADMIN_TOKEN, SECRET_KEY } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';
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

const REPLIES = 2000;

/**
 * An incremental sync through the typed client (sort=updated_at) while the server writes replies to
 * REPLIES random reviews: the first walk from nothing, then walks from the newest stamp seen until
 * one adds nothing. Fails unless every review arrived, no version twice, and every reply written is
 * in the client's last copy of its review.
 */
async function syncWalk(origin: string, key: string, ids: readonly string[]): Promise<Walk & { replies: number; catchUps: number }> {
  const client = createReputeClient({ baseUrl: origin, apiKey: key });
  const copies = new Map<string, { updated_at: string; owner_reply: string | null }>();
  const versions = new Set<string>();
  const replied = new Map<string, string>();
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < REPLIES; i++) {
      const id = ids[(i * 7919) % ids.length]!;
      const text = `Thank you (${i})`;
      const r = await fetch(`${origin}/admin/v1/reviews/${id}/reply`, {
        method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ text }),
      });
      if (r.status !== 200) throw new Error(`reply: ${r.status} ${await r.text()}`);
      replied.set(id, text);
    }
    writing = false;
  })();
  const walk = async (since: string | undefined): Promise<{ fresh: number; newest: string | undefined }> => {
    let fresh = 0;
    let newest = since;
    for await (const review of pages((cursor) => client.GET('/reviews', {
      params: { query: { sort: 'updated_at', limit: LIMIT, cursor, ...(since ? { updated_since: since } : {}) } },
    }))) {
      const version = `${review.id}@${review.updated_at}`;
      if (since === undefined || review.updated_at > since) {
        if (versions.has(version)) throw new Error(`sync: version ${version} arrived twice`);
        fresh += 1;
      }
      versions.add(version);
      copies.set(review.id, { updated_at: review.updated_at, owner_reply: review.owner_reply });
      if (newest === undefined || review.updated_at > newest) newest = review.updated_at;
    }
    return { fresh, newest };
  };
  const started = performance.now();
  let { newest } = await walk(undefined);
  const seconds = (performance.now() - started) / 1000;
  const firstRows = copies.size;
  await writer;
  let catchUps = 0;
  for (let quiet = 0; quiet < 2; catchUps++) {
    // PostgreSQL serves a change about a second after it commits (the sync horizon).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const next = await walk(newest);
    newest = next.newest;
    quiet = next.fresh === 0 && !writing ? quiet + 1 : 0;
  }
  if (copies.size !== ids.length) throw new Error(`sync: ${copies.size} distinct reviews, expected ${ids.length}`);
  for (const [id, text] of replied) {
    if (copies.get(id)?.owner_reply !== text) throw new Error(`sync: the client's copy of ${id} lacks its last reply`);
  }
  return { rows: firstRows, seconds, replies: replied.size, catchUps };
}

async function benchDialect(dialect: Dialect): Promise<string> {
  const target = await benchDatabase(dialect);
  try {
    const seed = await seedReviews(target.database, { reviews: REVIEWS, groups: 5, propertiesPerGroup: 10, boundGroupShare: 0.55, days: 730 });
    const server = await startChildServer({
      databaseUrl: target.url, schema: dialect === 'postgres' ? target.schema : null,
      env: {
        DATABASE_URL: target.url, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', REPUTE_WORKER: 'off', RATE_LIMIT_MAX: '1000000000',
        REPUTE_ADMIN_TOKEN: ADMIN_TOKEN,
      },
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
      const ids = (await target.database.db.selectFrom('reviews').select('id').execute()).map((r) => r.id);
      const sync = await syncWalk(server.url, seed.rootKey, ids);
      return `[${dialect}] full walk of ${fmt(REVIEWS)} reviews (limit ${LIMIT}, best of ${ROUNDS}): typed client ${fmt(c)} rows/s vs plain fetch loop ${fmt(p)} rows/s: `
        + `ratio ${(c / p).toFixed(2)} (target ≥ 0.8); every review seen exactly once\n`
        + `[${dialect}] incremental sync (sort=updated_at) of ${fmt(REVIEWS)} reviews while ${fmt(sync.replies)} replies were written: `
        + `${fmt(sync.rows / sync.seconds)} rows/s for the first walk, ${sync.catchUps} catch-up walks with updated_since; `
        + 'every review arrived, no version twice, every reply in the last copy';
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
