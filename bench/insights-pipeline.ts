// Benchmark of the insights pipeline (issue 10), on SQLite and PostgreSQL:
// - the write path's cost of queueing: the bulk import path (upsertReviewsBulk, what `repute import`
//   and the demo run) and the admin upsert (upsertReview), each with the queue insert and without it
//   (the bench-only switch), written step by step on two fresh databases side by side (timeRound);
//   the ratio must stay ≥ 0.9;
// - the backfill: `repute insights extract`'s loop (extractDueBatch) over every queued review, in
//   reviews/s, and the process's RSS growth from loading the engine.
//   node --import tsx bench/insights-pipeline.ts [--reviews 20000] [--single 1000] [--rounds 3] [--dialect sqlite|postgres]
//   (--reviews and --single are rounded up to whole steps: 1,000 imported reviews, 50 upserts)
import { parseArgs } from 'node:util';
import type { Dialect } from '../src/db/connect.ts';
import { seeded } from '../src/demo/random.ts';
import { createExtractor } from '../src/extraction/index.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { extractDueBatch } from '../src/modules/insights/extraction.ts';
import { createNode } from '../src/modules/nodes/service.ts';
import { upsertReviewsBulk } from '../src/modules/reviews/bulk.ts';
import type { ReviewInput } from '../src/modules/reviews/schemas.ts';
import { extractionQueueing, upsertReview } from '../src/modules/reviews/service.ts';
import { storesFor } from '../src/stores.ts';
import type { TestDatabase } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';
import { analyze } from './support/data.ts';

const { values: args } = parseArgs({
  options: { reviews: { type: 'string', default: '20000' }, single: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' }, dialect: { type: 'string' } },
});
const REVIEWS = Number(args.reviews);
const SINGLE = Number(args.single);
const ROUNDS = Number(args.rounds);
const dialects: Dialect[] = args.dialect ? [args.dialect as Dialect] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const SENTENCES = [
  'The room was spacious and very clean.', 'Breakfast was varied with fresh bread and good coffee.', 'The staff at reception were friendly and helpful.',
  'Unfortunately the room facing the street was noisy at night.', 'The location is perfect, close to the old town and the station.',
  'The bed was comfortable but the pillows were too soft.', 'Wi-Fi was slow in the room.', 'Parking is expensive and the garage is small.',
  'The spa and the sauna were a highlight of our stay.', 'For the price we expected a bit more.', 'Check-in was quick and easy.',
  'The shower had good water pressure, but the towels were worn.', 'Dinner at the restaurant was excellent.', 'We would definitely come back.',
];

function reviews(random: ReturnType<typeof seeded>, properties: string[], n: number, tag: string): ReviewInput[] {
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: random.int(5, 9) }, () => random.pick(SENTENCES)).join(' ');
    return {
      node_id: properties[i % properties.length]!, platform: 'google', external_id: `${tag}-${i}`,
      reviewed_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), rating: random.int(1, 5), text: words, language: 'en',
    };
  });
}

async function setUp(dialect: Dialect): Promise<{ db: TestDatabase; accountId: string; properties: string[] }> {
  const db = await benchDatabase(dialect);
  const account = await createAccount(db.database.db, { name: 'Bench Hotels' });
  const root = await createNode(db.database.db, account.id, { name: 'Bench', type: 'account', parent_id: null });
  const properties: string[] = [];
  for (let p = 0; p < 10; p++) properties.push((await createNode(db.database.db, account.id, { name: `Hotel ${p}`, type: 'property', parent_id: root.id })).id);
  return { db, accountId: account.id, properties };
}

/**
 * One round of a write path, with the queue and without it, on two fresh databases written side by
 * side: each step (a batch of 1,000 imported reviews, or 50 admin upserts) runs on one database then
 * the other, alternating which goes first. A PostgreSQL checkpoint or a slow fsync then falls on both
 * alike, and both databases grow at the same pace. Only the writes are timed, not making up the
 * reviews. Answers reviews/s with the queue and without it.
 */
async function timeRound(
  dialect: Dialect, steps: number, size: number, tag: string,
  write: (database: Awaited<ReturnType<typeof setUp>>, inputs: ReviewInput[]) => Promise<void>,
): Promise<[number, number]> {
  const withQueue = await setUp(dialect);
  const without = await setUp(dialect);
  const seconds = [0, 0];
  let written = 0;
  try {
    for (let i = 0; i < steps; i++) {
      // The same reviews for both databases, each on its own properties.
      const make = (d: typeof withQueue) => reviews(seeded(i + 1), d.properties, size, `${tag}${i}`);
      for (const queue of i % 2 === 0 ? [true, false] : [false, true]) {
        const database = queue ? withQueue : without;
        const inputs = make(database);
        extractionQueueing.enabled = queue;
        const started = performance.now();
        await write(database, inputs);
        seconds[queue ? 0 : 1]! += (performance.now() - started) / 1000;
      }
      written += size;
      // PostgreSQL plans a never-analyzed table from guesses: until autovacuum's first ANALYZE (up to a
      // minute into a server's life, past the end of a round) the review upsert's identity lookup may
      // take reviews_account_platform_time and filter every review of the account, on one database and
      // not the other. Statistics after the first step measure the steady state on both alike.
      if (i === 0 && dialect === 'postgres') for (const { db } of [withQueue, without]) await analyze(db.database);
    }
    return [written / seconds[0]!, written / seconds[1]!];
  } finally {
    extractionQueueing.enabled = true;
    await withQueue.db.drop();
    await without.db.drop();
  }
}

const IMPORT_BATCH = 1000;
const UPSERT_STEP = 50;

function timeImport(dialect: Dialect): Promise<[number, number]> {
  return timeRound(dialect, Math.ceil(REVIEWS / IMPORT_BATCH), IMPORT_BATCH, 'r', async ({ db, accountId }, inputs) => {
    await upsertReviewsBulk({ db: db.database.db, reviews: storesFor(db.database).reviews }, accountId, inputs);
  });
}

function timeSingle(dialect: Dialect): Promise<[number, number]> {
  return timeRound(dialect, Math.ceil(SINGLE / UPSERT_STEP), UPSERT_STEP, 's', async ({ db, accountId }, inputs) => {
    for (const input of inputs) await upsertReview(db.database.db, accountId, input);
  });
}

// The engine's memory, measured first, before this process holds any data: lexicons compiled and
// the language detector loaded by a first read.
global.gc?.();
const rssBeforeEngine = process.memoryUsage().rss;
createExtractor().extract({ title: null, text: 'Das Frühstück war gut.', language: null });
global.gc?.();
const engineRssMb = Math.round((process.memoryUsage().rss - rssBeforeEngine) / 1048576);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The rounds' own ratios (with ÷ without, the two measured next to each other), as the spread of the figure. */
const spread = (withQueue: number[], without: number[]) => {
  const ratios = withQueue.map((w, i) => w / without[i]!);
  return `rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
};
const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

for (const dialect of dialects) {
  const figures = { importWith: [] as number[], importWithout: [] as number[], singleWith: [] as number[], singleWithout: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const [importWith, importWithout] = await timeImport(dialect);
    figures.importWith.push(importWith);
    figures.importWithout.push(importWithout);
    const [singleWith, singleWithout] = await timeSingle(dialect);
    figures.singleWith.push(singleWith);
    figures.singleWithout.push(singleWithout);
  }
  console.log(`\n[${dialect}] write path, ${REVIEWS.toLocaleString('en-US')} imported reviews / ${SINGLE.toLocaleString('en-US')} admin upserts, ${ROUNDS} rounds (median):`);
  console.log(`  import        with queue ${fmt(median(figures.importWith))} reviews/s, without ${fmt(median(figures.importWithout))} reviews/s, ratio ${(median(figures.importWith) / median(figures.importWithout)).toFixed(2)} (${spread(figures.importWith, figures.importWithout)})`);
  console.log(`  admin upsert  with queue ${fmt(median(figures.singleWith))} reviews/s, without ${fmt(median(figures.singleWithout))} reviews/s, ratio ${(median(figures.singleWith) / median(figures.singleWithout)).toFixed(2)} (${spread(figures.singleWith, figures.singleWithout)})`);

  // The backfill: every imported review queued, read in the CLI's batches.
  const { db, accountId, properties } = await setUp(dialect);
  try {
    const bulk = { db: db.database.db, reviews: storesFor(db.database).reviews };
    const inputs = reviews(seeded(3), properties, REVIEWS, 'b');
    for (let i = 0; i < inputs.length; i += 1000) await upsertReviewsBulk(bulk, accountId, inputs.slice(i, i + 1000));
    const extractor = createExtractor();
    const started = performance.now();
    let done = 0;
    for (;;) {
      const took = await extractDueBatch({ db: db.database.db, extractor, log: { warn: () => {} } }, 500);
      if (took === 0) break;
      done += took;
    }
    const seconds = (performance.now() - started) / 1000;
    const words = inputs.reduce((n, r) => n + (r.text ?? '').split(/\s+/).length, 0) / inputs.length;
    console.log(`  backfill      ${fmt(done / seconds)} reviews/s (${done.toLocaleString('en-US')} reviews of ~${Math.round(words)} words, database writes included); engine RSS growth ${engineRssMb} MB (node --expose-gc for a clean figure)`);
  } finally {
    await db.drop();
  }
}
