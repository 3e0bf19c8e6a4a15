// Bench data generator: one account (root → groups → properties), an API key bound to one group,
// and many reviews with their review_stats aggregates, written straight into the schema in large
// batches (prepared inserts on SQLite, unnest() multi-row inserts on PostgreSQL) with the secondary
// indexes dropped and rebuilt afterwards, then ANALYZEd. The content is seeded, so both databases get
// the same reviews (ids are fresh UUIDv7s).
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { v7 } from 'uuid';
import type { Database } from '../../src/db/connect.ts';
import { hashKey } from '../../src/access/api-key.ts';
import { contribution, rebuildMonthlyStats, type StatsDelta } from '../../src/modules/reviews/repository.ts';

export const PLATFORMS = ['google', 'booking', 'tripadvisor', 'expedia'] as const;
const ALL_FEATURES = ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'];
const ALL_SCOPES = ['reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read', 'webhooks:manage', 'guests:write'];

export interface SeedOptions {
  reviews: number;
  groups: number;
  propertiesPerGroup: number;
  /** Share of all reviews that land in the first group (the one the key is bound to). */
  boundGroupShare: number;
  /** Reviews are spread evenly over this many days before `end`. */
  days: number;
  end?: Date;
  seed?: number;
  /** Called after each batch with the number of reviews written so far. */
  progress?: (written: number) => void;
}

export interface SeedResult {
  accountId: string;
  rootId: string;
  groups: { id: string; properties: string[] }[];
  /** The group the key is bound to, and how many reviews its subtree holds. */
  boundGroupId: string;
  boundGroupReviews: number;
  /** A plain API key (all scopes) bound to the bound group, and one bound to the root. */
  groupKey: string;
  rootKey: string;
  seconds: number;
}

/** Small fast seeded PRNG (mulberry32): the same seed gives the same data on both databases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the room was clean and quiet staff friendly breakfast excellent location perfect view pool spa '
  + 'noisy small bed comfortable check in slow fast helpful parking expensive value great again would stay '
  + 'bathroom shower towels wifi restaurant bar dinner lobby elevator beach city walk station airport')
  .split(' ');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it'];
const AUTHORS = ['Anna', 'Ben', 'Chloé', 'David', 'Eva', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kim', 'Luca'];

function words(rand: () => number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += (i === 0 ? '' : ' ') + WORDS[Math.floor(rand() * WORDS.length)];
  return out;
}

/** The review columns in insert order. */
const COLUMNS = [
  'id', 'account_id', 'node_id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text',
  'url', 'language', 'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'is_hidden', 'recommend', 'created_at', 'updated_at',
] as const;
type ReviewValues = (string | number | null)[];
const NUMERIC = new Set(['rating', 'rating_normalized']);
const INTEGER = new Set(['is_hidden', 'recommend']);

interface Tree {
  accountId: string;
  rootId: string;
  groups: { id: string; properties: string[] }[];
}

export async function seedReviews(database: Database, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const rand = prng(options.seed ?? 42);
  const now = new Date().toISOString();
  const tree = await insertTree(database, options, now);
  const keys = await insertKeys(database, tree, now);

  const bound = tree.groups[0]!.properties;
  const others = tree.groups.slice(1).flatMap((g) => g.properties);
  const end = (options.end ?? new Date()).getTime();
  const span = options.days * 86_400_000;
  const start = end - span;
  const stats = new Map<string, StatsDelta & { node_id: string; platform: string }>();
  let boundGroupReviews = 0;

  const restoreIndexes = await dropSecondaryIndexes(database, 'reviews');
  const writer = batchWriter(database);
  const batchSize = 5000;
  for (let from = 0; from < options.reviews; from += batchSize) {
    const batch: ReviewValues[] = [];
    for (let i = from; i < Math.min(options.reviews, from + batchSize); i++) {
      // Reviews arrive roughly in time order (as a live feed would), evenly over the span.
      const reviewedAt = new Date(start + ((i + rand()) * span) / options.reviews).toISOString();
      const inBound = others.length === 0 || rand() < options.boundGroupShare;
      const pool = inBound ? bound : others;
      const nodeId = pool[Math.floor(rand() * pool.length)]!;
      if (inBound) boundGroupReviews++;
      const platform = PLATFORMS[Math.floor(rand() * PLATFORMS.length)]!;
      const r = rand();
      const rating = r < 0.05 ? null : r < 0.12 ? 1 : r < 0.2 ? 2 : r < 0.35 ? 3 : r < 0.65 ? 4 : 5;
      const replied = rand() < 0.4;
      const hidden = rand() < 0.02 ? 1 : 0;
      const recommendRoll = rand();
      const recommend = recommendRoll < 0.5 ? null : rating !== null && rating >= 4 ? 1 : recommendRoll < 0.6 ? 1 : 0;
      const repliedAt = replied ? new Date(Date.parse(reviewedAt) + 86_400_000).toISOString() : null;
      const row: ReviewValues = [
        v7(), tree.accountId, nodeId, platform, `${platform}-${i}`, AUTHORS[i % AUTHORS.length]!,
        rating, rating === null ? null : rating * 20, words(rand, 3 + Math.floor(rand() * 5)),
        words(rand, 15 + Math.floor(rand() * 60)), `https://${platform}.example/reviews/${i}`,
        LANGUAGES[Math.floor(rand() * LANGUAGES.length)]!,
        rating === null ? null : rating >= 4 ? 'positive' : rating === 3 ? 'neutral' : 'negative',
        replied ? 'Thank you for staying with us, we hope to welcome you again soon.' : null, repliedAt,
        // Changed last when it was replied to, else when it was written (never later than now, as the
        // server's change stamps): sync pages see a spread of stamps.
        reviewedAt, hidden, recommend, now, repliedAt !== null && repliedAt < now ? repliedAt : reviewedAt,
      ];
      batch.push(row);
      addStats(stats, nodeId, platform, contribution({
        is_hidden: hidden, rating, rating_normalized: rating === null ? null : rating * 20,
        recommend, owner_reply: replied ? 'x' : null,
      }, 1));
    }
    await writer.write(batch);
    options.progress?.(Math.min(options.reviews, from + batchSize));
  }
  await writer.finish();
  await restoreIndexes();
  await insertStats(database, [...stats.values()]);
  await rebuildMonthlyStats(database.db, tree.accountId);
  await analyze(database);
  return {
    ...tree, boundGroupId: tree.groups[0]!.id, boundGroupReviews, groupKey: keys.groupKey, rootKey: keys.rootKey,
    seconds: (Date.now() - started) / 1000,
  };
}

function addStats(stats: Map<string, StatsDelta & { node_id: string; platform: string }>, nodeId: string, platform: string, d: StatsDelta): void {
  const key = `${nodeId}|${platform}`;
  const s = stats.get(key) ?? { node_id: nodeId, platform, reviews: 0, rating_count: 0, rating_sum: 0, normalized_count: 0, normalized_sum: 0, recommend_count: 0, recommend_yes: 0, replied: 0 };
  for (const k of Object.keys(d) as (keyof StatsDelta)[]) s[k] += d[k];
  stats.set(key, s);
}

async function insertTree(database: Database, options: SeedOptions, now: string): Promise<Tree> {
  const db = database.db;
  const accountId = v7();
  await db.insertInto('accounts').values({ id: accountId, name: 'Bench Hotels', plan_features: JSON.stringify(ALL_FEATURES), webhook_endpoint_limit: null, created_at: now }).execute();
  const rootId = v7();
  const rootPath = `/${rootId}/`;
  await db.insertInto('nodes').values({ id: rootId, account_id: accountId, parent_id: null, name: 'Bench Hotels', type: 'account', path: rootPath, created_at: now }).execute();
  const groups: Tree['groups'] = [];
  for (let g = 0; g < options.groups; g++) {
    const groupId = v7();
    const groupPath = `${rootPath}${groupId}/`;
    await db.insertInto('nodes').values({ id: groupId, account_id: accountId, parent_id: rootId, name: `Group ${g + 1}`, type: 'group', path: groupPath, created_at: now }).execute();
    const properties: string[] = [];
    for (let p = 0; p < options.propertiesPerGroup; p++) {
      const id = v7();
      await db.insertInto('nodes').values({ id, account_id: accountId, parent_id: groupId, name: `Hotel ${g + 1}.${p + 1}`, type: 'property', path: `${groupPath}${id}/`, created_at: now }).execute();
      properties.push(id);
    }
    groups.push({ id: groupId, properties });
  }
  return { accountId, rootId, groups };
}

async function insertKeys(database: Database, tree: Tree, now: string): Promise<{ groupKey: string; rootKey: string }> {
  const make = async (nodeId: string) => {
    const key = `rpt_${randomBytes(32).toString('base64url')}`;
    await database.db.insertInto('api_keys').values({
      id: v7(), account_id: tree.accountId, node_id: nodeId, name: 'bench', scopes: JSON.stringify(ALL_SCOPES),
      key_hash: hashKey(key), created_at: now, revoked_at: null,
    }).execute();
    return key;
  };
  return { groupKey: await make(tree.groups[0]!.id), rootKey: await make(tree.rootId) };
}

interface BatchWriter {
  write(rows: ReviewValues[]): Promise<void>;
  finish(): Promise<void>;
}

function batchWriter(database: Database): BatchWriter {
  if (database.dialect === 'sqlite') {
    const sqlite = database.sqlite;
    // A big page cache keeps the index B-trees in memory while loading (this connection only).
    sqlite.pragma('cache_size = -262144');
    const insert = sqlite.prepare(`insert into reviews (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    const writeAll = sqlite.transaction((rows: ReviewValues[]) => {
      for (const row of rows) insert.run(row);
    });
    return {
      write: async (rows) => writeAll(rows),
      finish: async () => {
        sqlite.pragma('wal_checkpoint(TRUNCATE)');
      },
    };
  }
  const pool = database.pool;
  const types = COLUMNS.map((c) => (NUMERIC.has(c) ? 'float8[]' : INTEGER.has(c) ? 'int4[]' : 'text[]'));
  const text = `insert into reviews (${COLUMNS.join(', ')}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})`;
  // Two batches in flight: the generator fills one while PostgreSQL writes the other.
  let inFlight: Promise<unknown>[] = [];
  return {
    write: async (rows) => {
      const columns = COLUMNS.map((_, c) => rows.map((row) => row[c]));
      inFlight.push(pool.query(text, columns));
      if (inFlight.length >= 2) await inFlight.shift();
    },
    finish: async () => {
      await Promise.all(inFlight);
      inFlight = [];
    },
  };
}

async function insertStats(database: Database, rows: (StatsDelta & { node_id: string; platform: string })[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await database.db.insertInto('review_stats').values(rows.slice(i, i + 500)).execute();
  }
}

/** Fresh planner statistics (and, on PostgreSQL, a visibility map so index-only scans can skip the heap). */
export async function analyze(database: Database): Promise<void> {
  if (database.dialect === 'sqlite') {
    database.sqlite.exec('analyze');
    return;
  }
  await database.pool.query('vacuum analyze');
}

/**
 * Drops a table's secondary indexes (not its primary key) and returns the function that re-creates
 * them from their own stored definitions: building an index once over loaded rows is several times
 * faster than updating it row by row, and the definitions stay exactly the migration's.
 */
export async function dropSecondaryIndexes(database: Database, table: string): Promise<() => Promise<void>> {
  if (database.dialect === 'sqlite') {
    const sqlite = database.sqlite;
    // Automatic indexes (primary key, UNIQUE constraints) have no SQL and stay.
    const indexes = sqlite.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null").all(table) as { name: string; sql: string }[];
    for (const index of indexes) sqlite.exec(`drop index "${index.name}"`);
    return async () => {
      for (const index of indexes) sqlite.exec(index.sql);
    };
  }
  const pool = database.pool;
  const { rows } = await pool.query<{ indexname: string; indexdef: string }>(
    `select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = $1
       and indexname not in (select conname from pg_constraint where conrelid = $1::regclass)`, [table]);
  for (const index of rows) await pool.query(`drop index "${index.indexname}"`);
  return async () => {
    const client = await pool.connect();
    try {
      await client.query("set maintenance_work_mem = '256MB'");
      for (const index of rows) await client.query(index.indexdef);
    } finally {
      client.release();
    }
  };
}

/** A mention for about every fourth review of the account (ids ending in 0, 4, 8 or c), created when the review was written. */
export async function seedMentions(database: Database, accountId: string): Promise<void> {
  const topic = await database.db.selectFrom('topics').select('id').where('account_id', 'is', null).orderBy('id').executeTakeFirstOrThrow();
  await sql`insert into mentions (id, account_id, review_id, node_id, canonical_label_id, custom_category_id, text, source_field, sentiment, confidence, created_at, extracted, import_key)
    select id, account_id, id, node_id, ${topic.id}, null, 'The room was spotless.', 'text', sentiment, 0.9, reviewed_at, 1, null
    from reviews where account_id = ${accountId} and substr(id, 36, 1) in ('0', '4', '8', 'c')`.execute(database.db);
  if (database.dialect === 'postgres') await sql`analyze mentions`.execute(database.db);
}
