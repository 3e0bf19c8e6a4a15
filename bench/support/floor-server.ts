// The floor of the read path (issue 14): a bare node:http server with only the database driver
// (better-sqlite3, or `pg` with a pool of 10 and one named prepared statement per query), running
// the SQL Repute runs for the same request (captured from Repute, passed in), a plain comparison of
// the bearer key, the same envelope, JSON.stringify. No framework, no validation, no rate limit:
// what answering these bytes costs at least. A child process; the parent gets "listening" over IPC.
import http from 'node:http';
import Database from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { registerSqliteFunctions, sqliteSql } from '../../src/db/dialect.ts';
import { type RowMaker, rowMaker, rowsAsObjects } from '../../src/db/row-maker.ts';
import { fanOutSql } from '../../src/events/outbox.ts';
import { cursorsFor } from '../../src/http/pagination.ts';
import { fingerprinter } from '../../src/lib/fingerprint.ts';
import { newId } from '../../src/lib/ids.ts';
import { GUEST_COLUMNS, guestUpsert, STAY_COLUMNS, stayUpsert } from '../../src/modules/guests/repository.ts';
import { GUEST_FIELDS, STAY_FIELDS } from '../../src/modules/guests/schemas.ts';
import { pgPushStatementWithStay } from '../../src/modules/guests/store-postgres.ts';

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
  /** POST /guests: the key's account and the one property the bench pushes to. */
  accountId: string;
  guestPropertyId: string;
  /**
   * 'node': bare node:http (the floor). 'fastify': the same answers through a bare Fastify app (one
   * route per scenario, no hooks, no schemas): how much of Repute's distance to the floor the
   * framework alone takes.
   */
  http: 'node' | 'fastify';
  /**
   * 'objects': rows as the driver makes them by default (the floor). 'arrays': read as arrays
   * (better-sqlite3's raw mode, pg's rowMode 'array') and made into objects by a function written
   * for their columns, as Repute reads them (src/db/row-maker.ts): how far Repute stands from a bare
   * server that reads its rows the same way.
   */
  rows: 'objects' | 'arrays';
}

const options = JSON.parse(process.env.REPUTE_FLOOR_SERVER ?? '{}') as FloorOptions;
const cursors = cursorsFor(Buffer.from(options.secretKey, 'base64'));
const LIMIT = 25;

type Run = (query: FloorQuery, parameters: unknown[]) => Promise<Record<string, unknown>[]>;

function sqliteRunner(): Run {
  const db = new Database(options.database, { readonly: true });
  db.pragma('journal_mode = WAL');
  const statements = new Map<string, { statement: Database.Statement; maker: RowMaker | null }>();
  return async (query, parameters) => {
    let prepared = statements.get(query.sql);
    if (!prepared) {
      const statement = db.prepare(query.sql);
      // (The data does not change shape under the floor: its row function is made once.)
      const maker = options.rows === 'arrays' ? rowMaker(statement.columns().map((c) => c.name)) : null;
      prepared = { statement: maker ? statement.raw(true) : statement, maker };
      statements.set(query.sql, prepared);
    }
    const rows = prepared.statement.all(...parameters);
    return prepared.maker ? rowsAsObjects(prepared.maker, rows as unknown[][]) : rows as Record<string, unknown>[];
  };
}

function postgresRunner(): Run {
  const pool = new pg.Pool({ connectionString: options.database, max: 10 });
  const names = new Map<string, string>();
  const makers = new Map<string, RowMaker>();
  return async (query, parameters) => {
    let name = names.get(query.sql);
    if (!name) {
      name = `floor_${names.size}`;
      names.set(query.sql, name);
    }
    if (options.rows === 'objects') return (await pool.query({ name, text: query.sql, values: parameters })).rows;
    const result = await pool.query<unknown[]>({ name, text: query.sql, values: parameters, rowMode: 'array' });
    let maker = makers.get(name);
    if (!maker) {
      maker = rowMaker(result.fields.map((f) => f.name));
      makers.set(name, maker);
    }
    return rowsAsObjects(maker, result.rows);
  };
}

const run = options.dialect === 'sqlite' ? sqliteRunner() : postgresRunner();

// ---- POST /guests: the write Repute makes for a push of a guest with one stay (no custom fields,
// no consent), with the same SQL: on PostgreSQL its single statement (tombstone check, both
// upserts, guest.created and its fan-out), on SQLite its two upserts and the event with its
// fan-out in one transaction per push (Repute groups pushes into shared commits; the floor does not).

interface StayBody { external_id: string; status?: string; check_in?: string; check_out?: string; channel?: string }
interface GuestBody { email: string; property_id: string; first_name?: string; last_name?: string; reservation: StayBody }
type Row = Record<string, unknown>;

const fingerprint = fingerprinter(Buffer.from(options.secretKey, 'base64'));

/** The parameters Repute binds for such a push: the rows a create inserts, and which fields were sent. */
function pushParams(body: GuestBody, now: string): Row {
  const guest: Row = { id: newId(), account_id: options.accountId, property_id: body.property_id, email: body.email.trim().toLowerCase(), source: 'api' };
  for (const f of GUEST_FIELDS) guest[f] = (body as unknown as Row)[f] ?? null;
  Object.assign(guest, { custom_fields: '{}', marketing_consent: 'unknown', created_at: now, updated_at: now });
  const r = body.reservation;
  const stay: Row = { id: newId(), account_id: options.accountId, property_id: body.property_id, guest_id: '', external_id: r.external_id, status: r.status ?? 'booked' };
  for (const f of STAY_FIELDS) stay[f] = (r as unknown as Row)[f] ?? null;
  Object.assign(stay, { custom_fields: '{}', created_at: now, updated_at: now });
  const params: Row = { grant: false, s_custom: false, r_s_custom: false, s_status: r.status !== undefined, fingerprint: fingerprint(body.property_id, guest.email as string) };
  for (const c of GUEST_COLUMNS) params[c] = guest[c];
  for (const f of GUEST_FIELDS) params[`s_${f}`] = f in body;
  for (const c of STAY_COLUMNS) params[`r_${c}`] = stay[c];
  for (const f of STAY_FIELDS) params[`s_${f}`] = f in r;
  return params;
}

const eventBody = (eventId: string, now: string, guest: Row) => JSON.stringify({
  id: eventId, type: 'guest.created', timestamp: now, account_id: options.accountId, data: { guest_id: guest.id, property_id: guest.property_id },
});

type Pusher = (body: GuestBody, now: string) => Promise<{ guest: Row; stay: Row; created: boolean }>;

function sqlitePusher(): Pusher {
  const db = new Database(options.database);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  registerSqliteFunctions(db);
  const bits = (params: Row) => Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]));
  const merge = (a: string, b: string) => `json_patch(${a}, ${b})`;
  const named = (name: string) => `@${name}`;
  const upsertGuest = db.prepare(`${guestUpsert(named, merge, `select ${GUEST_COLUMNS.map((c) => `@${c}`).join(', ')}
    where not exists (select 1 from erased_guests where property_id = @property_id and fingerprint = @fingerprint)`)} returning *`);
  const upsertStay = db.prepare(`${stayUpsert(named, merge, `values (${STAY_COLUMNS.map((c) => `@r_${c}`).join(', ')})`, true)} returning *`);
  const insertEvent = db.prepare('insert into events (id, account_id, type, payload, created_at) values (?, ?, ?, ?, ?)');
  const fanOut = db.prepare(fanOutSql(sqliteSql, '(select ? as id, ? as account_id, ? as type, null as endpoint_id)', '?'));
  const push = db.transaction((body: GuestBody, now: string) => {
    const params = bits(pushParams(body, now));
    const guest = upsertGuest.get(params) as Row;
    const stay = upsertStay.get({ ...params, r_guest_id: guest.id }) as Row;
    const created = guest.id === params.id;
    if (created) {
      const eventId = newId();
      insertEvent.run(eventId, options.accountId, 'guest.created', eventBody(eventId, now, guest), now);
      fanOut.run(eventId, options.accountId, 'guest.created', now);
    }
    return { guest, stay, created };
  });
  return async (body, now) => push.immediate(body, now);
}

function postgresPusher(): Pusher {
  const pool = new pg.Pool({ connectionString: options.database, max: 10 });
  return async (body, now) => {
    const params = pushParams(body, now);
    const { rows: [row] } = await pool.query({ name: 'floor_guest_push', text: pgPushStatementWithStay.text, values: pgPushStatementWithStay.values(params) });
    return { guest: row.guest as Row, stay: row.stay as Row, created: (row.guest as Row).id === params.id };
  };
}

const pushGuest = options.dialect === 'sqlite' ? sqlitePusher() : postgresPusher();

/** Repute's Guest answer: these fields, in this order, the reservation last. */
function guestAnswer(g: Row, s: Row): string {
  return JSON.stringify({
    id: g.id, property_id: g.property_id, source: g.source, email: g.email, salutation: g.salutation, first_name: g.first_name,
    last_name: g.last_name, phone: g.phone, country_code: g.country_code, language_code: g.language_code, created_at: g.created_at,
    updated_at: g.updated_at,
    reservation: {
      id: s.id, external_id: s.external_id, status: s.status, raw_status: s.raw_status, check_in: s.check_in, check_out: s.check_out,
      checked_in_at: s.checked_in_at, checked_out_at: s.checked_out_at, channel: s.channel, created_at: s.created_at, updated_at: s.updated_at,
    },
  });
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function push(text: string): Promise<[number, string]> {
  const body = JSON.parse(text) as GuestBody;
  if (body.property_id !== options.guestPropertyId) return [422, '{"error":"property_id is not a property of the key","code":"unprocessable"}'];
  const now = new Date().toISOString();
  const { guest, stay, created } = await pushGuest(body, now);
  return [created ? 201 : 200, guestAnswer(guest, stay)];
}

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

/** The answer to a request; `body` reads a POST's body (node:http reads the stream, Fastify has parsed it). */
async function answer(req: http.IncomingMessage, body: () => Promise<string>): Promise<[number, string]> {
  if (req.headers.authorization !== bearer) return [401, '{"error":"unauthenticated","code":"unauthenticated"}'];
  const url = new URL(req.url ?? '/', 'http://floor');
  if (req.method === 'POST' && url.pathname === '/api/v4/guests') return push(await body());
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

const JSON_TYPE = 'application/json; charset=utf-8';

function nodeServer(): http.Server {
  const server = http.createServer((req, res) => {
    answer(req, () => readBody(req)).then(([status, body]) => {
      res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, (error: Error) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: error.message }));
    });
  });
  server.keepAliveTimeout = 120_000;
  return server;
}

async function fastifyServer(): Promise<http.Server> {
  const app = Fastify({ keepAliveTimeout: 120_000 });
  // The body as text: the floor parses it itself, as node:http's does.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => done(null, text));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const [status, body] = await answer(request.raw, async () => request.body as string);
    return reply.code(status).type(JSON_TYPE).send(body);
  };
  for (const url of ['/api/v4/reviews', '/api/v4/insights/mentions', '/api/v4/analytics/scores']) app.get(url, handler);
  app.post('/api/v4/guests', handler);
  await app.ready();
  return app.server;
}

const server = options.http === 'fastify' ? await fastifyServer() : nodeServer();
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send!({ type: 'listening', url: `http://127.0.0.1:${address.port}` });
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') server.close(() => process.exit(0));
});
// The bench is gone (interrupted, or killed): nobody will ask this server anything again.
process.on('disconnect', () => process.exit(0));
