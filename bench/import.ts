// Benchmark: `repute import` of N reviews (NDJSON, 50 properties) against a raw prepared-insert loop
// of the same rows into a fresh copy of the same schema, on SQLite and on PostgreSQL (own schema).
//   node --import tsx bench/import.ts [--rows 1000000] [--batch 1000] [--dialect sqlite|postgres]
// The import is timed in-process: importNdjson(), the function `repute import` runs, reading the file.
// The baseline reads and JSON-parses the same file and inserts each row with one prepared INSERT
// (better-sqlite3 / pg named statement) in transactions of the same batch size: no validation, no
// upsert, no review_stats, no events. PostgreSQL needs TEST_DATABASE_URL.
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Dialect } from '../src/db/connect.ts';
import { importNdjson } from '../src/import/run.ts';
import { newId } from '../src/lib/ids.ts';
import { toIso } from '../src/lib/time.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createNode } from '../src/modules/nodes/service.ts';
import { seeded } from '../src/demo/random.ts';
import { poolOf, sqliteOf, type TestDatabase } from '../test/support/app.ts';
import { benchDatabase } from './support/interrupt.ts';

const { values: args } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, batch: { type: 'string', default: '1000' }, dialect: { type: 'string' } },
});
const ROWS = Number(args.rows);
const BATCH = Number(args.batch);
const dialects: Dialect[] = args.dialect ? [args.dialect as Dialect] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const COLUMNS = [
  'id', 'account_id', 'node_id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text',
  'url', 'language', 'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'is_hidden', 'recommend', 'created_at', 'updated_at',
] as const;

interface Hierarchy { accountId: string; properties: string[] }

async function createHierarchy(db: TestDatabase): Promise<Hierarchy> {
  const account = await createAccount(db.database.db, { name: 'Bench Hotels' });
  const root = await createNode(db.database.db, account.id, { name: 'Bench Hotels', type: 'account', parent_id: null });
  const properties: string[] = [];
  for (let r = 0; r < 5; r++) {
    const region = await createNode(db.database.db, account.id, { name: `Region ${r + 1}`, type: 'region', parent_id: root.id });
    for (let p = 0; p < 10; p++) {
      properties.push((await createNode(db.database.db, account.id, { name: `Hotel ${r + 1}.${p + 1}`, type: 'property', parent_id: region.id })).id);
    }
  }
  return { accountId: account.id, properties };
}

/** The baseline's database holds the same account and nodes (same ids), so the same file's rows fit it. */
async function copyHierarchy(from: TestDatabase, to: TestDatabase): Promise<void> {
  await to.database.db.insertInto('accounts').values(await from.database.db.selectFrom('accounts').selectAll().execute()).execute();
  const nodes = await from.database.db.selectFrom('nodes').selectAll().orderBy('path').execute();
  for (const node of nodes.sort((a, b) => a.path.length - b.path.length)) await to.database.db.insertInto('nodes').values(node).execute();
}

const WORDS = 'room staff breakfast clean friendly location quiet view pool bed comfortable helpful noisy small coffee spa lobby parking price value check-in late station beach old modern shower towels dinner bar terrace garden'.split(' ');

async function writeFile(path: string, h: Hierarchy): Promise<number> {
  const random = seeded(42);
  const out = createWriteStream(path);
  const start = Date.UTC(2024, 0, 1);
  let bytes = 0;
  for (let i = 0; i < ROWS; i += 10_000) {
    const lines: string[] = [];
    for (let j = i; j < Math.min(i + 10_000, ROWS); j++) {
      const rating = random.weighted([[5, 45], [4, 30], [3, 12], [2, 7], [1, 6]] as const);
      const words = Array.from({ length: random.int(12, 40) }, () => random.pick(WORDS)).join(' ');
      const replied = random.chance(0.3);
      lines.push(JSON.stringify({
        type: 'review', account_id: h.accountId, node_id: h.properties[j % h.properties.length],
        platform: random.pick(['google', 'booking', 'tripadvisor', 'expedia']), external_id: `r-${j}`,
        reviewed_at: new Date(start + j * 60_000).toISOString(), author: `Guest ${random.int(1, 99_999)}`, rating,
        title: words.slice(0, 40), text: words, language: random.pick(['en', 'de', 'fr', 'es', 'it']),
        sentiment: rating >= 4 ? 'positive' : rating === 3 ? 'neutral' : 'negative',
        ...(replied ? { owner_reply: 'Thank you for your review, we hope to welcome you again.' } : {}),
        ...(random.chance(0.3) ? { recommend: rating >= 4 } : {}),
        ...(random.chance(0.02) ? { is_hidden: true } : {}),
      }));
    }
    const chunk = `${lines.join('\n')}\n`;
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** The row the baseline inserts for one line: the same columns the import writes. */
function rowOf(line: Record<string, any>, now: string): unknown[] {
  const rating = line.rating ?? null;
  const row: Record<string, unknown> = {
    id: newId(), account_id: line.account_id, node_id: line.node_id, platform: line.platform, external_id: line.external_id,
    author: line.author ?? null, rating, rating_normalized: rating === null ? null : rating * 20, title: line.title ?? null,
    text: line.text ?? null, url: null, language: line.language ?? null, sentiment: line.sentiment ?? null,
    owner_reply: line.owner_reply ?? null, replied_at: line.owner_reply ? now : null, reviewed_at: toIso(line.reviewed_at),
    is_hidden: line.is_hidden ? 1 : 0, recommend: line.recommend === undefined ? null : line.recommend ? 1 : 0, created_at: now, updated_at: now,
  };
  return COLUMNS.map((c) => row[c]);
}

const INSERT = `INSERT INTO reviews (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

async function baseline(db: TestDatabase, file: string): Promise<number> {
  const now = new Date().toISOString();
  let n = 0;
  // The reader starts reading at once: no await may come between creating it and iterating it.
  const lines = () => createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  if (db.dialect === 'sqlite') {
    const reader = lines();
    const sqlite = sqliteOf(db.database);
    const insert = sqlite.prepare(INSERT.replace(/\$\d+/g, '?'));
    sqlite.exec('BEGIN');
    for await (const text of reader) {
      insert.run(rowOf(JSON.parse(text), now));
      if (++n % BATCH === 0) sqlite.exec('COMMIT; BEGIN');
    }
    sqlite.exec('COMMIT');
    return n;
  }
  const client = await poolOf(db.database).connect();
  try {
    await client.query('BEGIN');
    const reader = lines();
    for await (const text of reader) {
      await client.query({ name: 'bench_insert', text: INSERT, values: rowOf(JSON.parse(text), now) });
      if (++n % BATCH === 0) {
        await client.query('COMMIT');
        await client.query('BEGIN');
      }
    }
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  return n;
}

const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000));
const fmt = (n: number) => n.toLocaleString('en-US');

async function runDialect(dialect: Dialect, dir: string): Promise<void> {
  const target = await benchDatabase(dialect);
  const base = await benchDatabase(dialect);
  try {
    const hierarchy = await createHierarchy(target);
    await copyHierarchy(target, base);
    const file = join(dir, `${dialect}.ndjson`);
    const bytes = await writeFile(file, hierarchy);
    console.log(`${dialect}: ${fmt(ROWS)} reviews over ${hierarchy.properties.length} properties, ${(bytes / 1e6).toFixed(0)} MB of NDJSON, batches of ${BATCH}`);

    let t = performance.now();
    const inserted = await baseline(base, file);
    const baseMs = performance.now() - t;

    t = performance.now();
    const summary = await importNdjson(target.database, createReadStream(file), { batchSize: BATCH });
    const importMs = performance.now() - t;

    const db = target.database.db;
    const reviews = (await db.selectFrom('reviews').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const events = (await db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'review.received').executeTakeFirstOrThrow()).n;
    const visible = (await db.selectFrom('review_stats').select((eb) => eb.fn.sum<number>('reviews').as('n')).executeTakeFirstOrThrow()).n;
    const hidden = (await db.selectFrom('reviews').select((eb) => eb.fn.countAll<number>().as('n')).where('is_hidden', '=', 1).executeTakeFirstOrThrow()).n;
    const checks = {
      'import summary created': summary.created.review, 'reviews rows': reviews, 'review.received events': events,
      'review_stats visible + hidden reviews': Number(visible) + Number(hidden), 'baseline rows': inserted,
    };
    const wrong = Object.entries(checks).filter(([, n]) => Number(n) !== ROWS).map(([what, n]) => `${what} = ${n}`);
    const ok = wrong.length === 0;
    console.log(`  baseline (prepared single-row INSERT): ${fmt(rate(inserted, baseMs))} rows/s (${(baseMs / 1000).toFixed(1)} s)`);
    console.log(`  repute import:                         ${fmt(rate(ROWS, importMs))} rows/s (${(importMs / 1000).toFixed(1)} s)`);
    console.log(`  ratio import / baseline: ${(baseMs / importMs).toFixed(2)} (target >= 0.5)`);
    console.log(`  check: ${fmt(reviews)} reviews, ${fmt(events)} review.received events, review_stats ${fmt(Number(visible))} visible + ${fmt(Number(hidden))} hidden: ${ok ? 'consistent' : `INCONSISTENT (expected ${ROWS}: ${wrong.join(', ')})`}`);
  } finally {
    await target.drop();
    await base.drop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'repute-bench-import-'));
try {
  for (const dialect of dialects) await runDialect(dialect, dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
