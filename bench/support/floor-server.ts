// The floor of the read path (issue 14): a bare node:http server with only the database driver
// (better-sqlite3, or `pg` with a pool of 10 and one named prepared statement per query), running
// the SQL Repute runs for the same request (captured from Repute, passed in), a plain comparison of
// the bearer key, the same envelope, JSON.stringify. No framework, no validation, no rate limit:
// what answering these bytes costs at least. A child process; the parent gets "listening" over IPC.
import http from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cursorsFor } from '../../src/http/pagination.ts';

export interface FloorQuery {
  sql: string;
  parameters: unknown[];
}

export interface FloorOptions {
  dialect: 'sqlite' | 'postgres';
  /** The SQLite file, or the PostgreSQL URL (search_path in its options). */
  database: string;
  key: string;
  secretKey: string;
  /** The cursor binding of GET /reviews for the key (account, route, params). */
  reviewsBinding: string;
  mentionsBinding: string;
  /** SQL as Repute runs it: page 1 and the deep page of /reviews (its keyset in the last two parameters), the mentions page, the scores sums. */
  reviewsPage1: FloorQuery;
  reviewsDeep: FloorQuery;
  /** Where the deep page's keyset (reviewed_at, id) sits in its parameters. */
  reviewsDeepKeyset: [time: number, id: number];
  mentionsPage1: FloorQuery;
  scores: FloorQuery;
  nodeId: string;
}

const options = JSON.parse(process.env.REPUTE_FLOOR_SERVER ?? '{}') as FloorOptions;
const cursors = cursorsFor(Buffer.from(options.secretKey, 'base64'));
const LIMIT = 25;

type Run = (query: FloorQuery, parameters: unknown[]) => Promise<Record<string, unknown>[]>;

function sqliteRunner(): Run {
  const db = new Database(options.database, { readonly: true });
  db.pragma('journal_mode = WAL');
  const statements = new Map<string, Database.Statement>();
  return async (query, parameters) => {
    let statement = statements.get(query.sql);
    if (!statement) {
      statement = db.prepare(query.sql);
      statements.set(query.sql, statement);
    }
    return statement.all(...parameters) as Record<string, unknown>[];
  };
}

function postgresRunner(): Run {
  const pool = new pg.Pool({ connectionString: options.database, max: 10 });
  const names = new Map<string, string>();
  return async (query, parameters) => {
    let name = names.get(query.sql);
    if (!name) {
      name = `floor_${names.size}`;
      names.set(query.sql, name);
    }
    return (await pool.query({ name, text: query.sql, values: parameters })).rows;
  };
}

const run = options.dialect === 'sqlite' ? sqliteRunner() : postgresRunner();

/** Rows of a page query (limit + 1) → Repute's envelope, next_cursor sealed the same way. */
function page(rows: Record<string, unknown>[], binding: string, timeColumn: string, map: (row: Record<string, unknown>) => unknown): string {
  const hasMore = rows.length > LIMIT;
  const data = hasMore ? rows.slice(0, LIMIT) : rows;
  const last = data.at(-1);
  const next = hasMore && last ? cursors.seal(binding, { time: last[timeColumn] as string, id: last.id as string }) : null;
  return JSON.stringify({ data: data.map(map), next_cursor: next, has_more: hasMore });
}

const review = (r: Record<string, unknown>) => ({ ...r, is_hidden: r.is_hidden !== 0 });
const mention = (r: Record<string, unknown>) => ({
  id: r.id, review_id: r.review_id, source_field: r.source_field, text: r.text, sentiment: r.sentiment, canonical_label_id: r.canonical_label_id,
  custom_category_id: r.custom_category_id, confidence: r.confidence, is_hidden: Number(r.is_hidden) !== 0, created_at: r.created_at,
});
const ratio1 = (n: number, d: number, scale = 1): number | null => (d <= 0 ? null : Math.round((n * scale * 10) / d + 1e-9) / 10);

function scores(rows: Record<string, unknown>[]): string {
  const platforms = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'platform' ? v : Number(v)])) as Record<string, number> & { platform: string })
    .filter((p) => (p.reviews ?? 0) > 0).sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
  const total = (k: string) => platforms.reduce((s, p) => s + p[k]!, 0);
  return JSON.stringify({
    node_id: options.nodeId,
    overall_score: ratio1(total('rating_sum'), total('rating_count')),
    overall_score_normalized: ratio1(total('normalized_sum'), total('normalized_count')),
    total_reviews: total('reviews'),
    recommend_rate: ratio1(total('recommend_yes'), total('recommend_count'), 100),
    response_rate: ratio1(total('replied'), total('reviews'), 100),
    platform_scores: platforms.map((p) => ({ platform: p.platform, score: ratio1(p.rating_sum!, p.rating_count!), score_normalized: ratio1(p.normalized_sum!, p.normalized_count!), reviews: p.reviews })),
  });
}

const bearer = `Bearer ${options.key}`;

async function answer(req: http.IncomingMessage): Promise<[number, string]> {
  if (req.headers.authorization !== bearer) return [401, '{"error":"unauthenticated","code":"unauthenticated"}'];
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/api/v4/reviews') {
    const cursor = url.searchParams.get('cursor');
    if (cursor === null) return [200, page(await run(options.reviewsPage1, options.reviewsPage1.parameters), options.reviewsBinding, 'reviewed_at', review)];
    const at = cursors.open(options.reviewsBinding, cursor)!;
    const parameters = [...options.reviewsDeep.parameters];
    parameters[options.reviewsDeepKeyset[0]] = at.time;
    parameters[options.reviewsDeepKeyset[1]] = at.id;
    return [200, page(await run(options.reviewsDeep, parameters), options.reviewsBinding, 'reviewed_at', review)];
  }
  if (url.pathname === '/api/v4/insights/mentions') {
    return [200, page(await run(options.mentionsPage1, options.mentionsPage1.parameters), options.mentionsBinding, 'created_at', mention)];
  }
  if (url.pathname === '/api/v4/analytics/scores') return [200, scores(await run(options.scores, options.scores.parameters))];
  return [404, '{"error":"not found","code":"not_found"}'];
}

const server = http.createServer((req, res) => {
  answer(req).then(([status, body]) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }, (error: Error) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: error.message }));
  });
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send!({ type: 'listening', url: `http://127.0.0.1:${address.port}` });
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') server.close(() => process.exit(0));
});
