// Write-then-read fuzz: hostile values (edge and impossible timestamps, leap seconds, offsets past
// 9999 or before 1970, non-finite and huge numbers written as JSON like 1e309, long strings, lone
// surrogates, NUL and other Unicode edge cases) go through every write route of both APIs and
// through `repute import`; then every read route of both APIs is read with keys that see the data.
// Whatever a write accepted must read back: no answer of any read is 5xx. Prints the figure.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { importNdjson } from '../../src/import/run.ts';
import { ADMIN_TOKEN } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

/** Raw JSON texts: what a client can put where a value goes. */
const TIMESTAMPS = [
  '9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.9999999Z', '9999-12-31T23:59:59+00:00',
  '2016-12-31T23:59:60Z', '2016-12-31T23:59:60+01:00', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00+00:01',
  '1969-12-31T23:59:59.999Z', '1970-01-01T00:59:59-01:00', '0000-01-01T00:00:00Z', '0099-01-01T00:00:00Z',
  '+010000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00Z', '2026-02-29T00:00:00Z', '2024-02-29T12:00:00+14:00',
  '2026-11-22T10:00:00+24:00', '2026-11-22T10:00:00+23:60', '2026-11-22t10:00:00z', '2026-11-22 10:00:00Z',
  '2026-11-22T10:00:00.123456789+05:30', '2026-11-22T10:00:00', '2026-11-22', '2026-13-01T00:00:00Z', '',
].map((s) => JSON.stringify(s));
const NUMBERS = ['1e309', '-1e309', '1e308', '-1e308', '1e12', '1000000000001', '-0', '5e-324', '0.1', '5', '5.000000000000001', '100', '101', '-1', '4.99999999999999999999'];
const STRINGS = [
  'x'.repeat(100_001), 'x'.repeat(2_001), '\ud800', 'a\udfffb', '\udbff\udfff', 'a\u0000b', '\u0000', '😀'.repeat(50), '\u202egnp.exe',
  'e\u0301\u0301\u0301', '\ufeffBOM', '\u2028\u2029', 'ｆｕｌｌ', '\uffff', '<script>alert(1)</script>', 'null', ' ', 'a'.repeat(64) + '@example.com',
].map((s) => JSON.stringify(s));
const OTHERS = ['null', 'true', '[]', '{}', '{"a":{"b":[1e308]}}', '["\\ud800"]', '{"\\ud800":1}', '{"x":1e309}'];
const HOSTILE = [...TIMESTAMPS, ...NUMBERS, ...STRINGS, ...OTHERS];

const SENTINEL = '\u0001hostile\u0001';

/** The base body with the value at `path` (dots; numeric parts index arrays) replaced by raw JSON text. */
function withRaw(base: Record<string, unknown>, path: string, raw: string): string {
  const body = structuredClone(base);
  const parts = path.split('.');
  let holder: any = body;
  for (const part of parts.slice(0, -1)) {
    holder[part] ??= {};
    holder = holder[part];
  }
  holder[parts.at(-1)!] = SENTINEL;
  return JSON.stringify(body).replace(JSON.stringify(SENTINEL), raw);
}

interface WriteRoute {
  method: 'POST' | 'PATCH' | 'PUT';
  /** Full path, /api/v4/… or /admin/v1/…. */
  url: string;
  base: Record<string, unknown>;
  fields: string[];
}

interface Figures {
  tried: number;
  accepted: number;
  refused: number;
  reads: number;
  fiveHundreds: string[];
}

eachDatabase('write-then-read fuzz: hostile values through every write route and import, then no read answers 5xx', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const a = tree.accountId;
  const p = tree.properties[0];
  const figures: Figures = { tried: 0, accepted: 0, refused: 0, reads: 0, fiveHundreds: [] };

  const send = async (method: string, url: string, payload?: string): Promise<LightMyRequestResponse> => {
    const authorization = url.startsWith('/admin/') ? `Bearer ${ADMIN_TOKEN}` : `Bearer ${key}`;
    const headers: Record<string, string> = { authorization, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) };
    return t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  };
  const write = async (method: string, url: string, payload?: string): Promise<LightMyRequestResponse> => {
    const r = await send(method, url, payload);
    figures.tried += 1;
    if (r.statusCode >= 500) figures.fiveHundreds.push(`${method} ${url} ${payload?.slice(0, 200)} → ${r.statusCode} ${r.body}`);
    else if (r.statusCode < 300) figures.accepted += 1;
    else figures.refused += 1;
    return r;
  };
  const created = async (method: string, url: string, body: unknown): Promise<any> => {
    const r = await write(method, url, JSON.stringify(body));
    assert.ok(r.statusCode < 300, `${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json();
  };

  // Things the hostile writes refer to, written with valid values.
  const review = await createReview(t, a, p);
  const topic = await created('POST', `/admin/v1/accounts/${a}/topics`, { name: 'Breakfast' });
  const survey = await created('POST', `/admin/v1/accounts/${a}/surveys`, { node_id: p, name: 'Stay', definition: {}, status: 'published' });
  const draft = await created('POST', `/admin/v1/accounts/${a}/surveys`, { node_id: p, name: 'Draft', definition: {}, status: 'draft' });
  const started = await created('POST', `/admin/v1/surveys/${survey.id}/responses`, { node_id: p, channel: 'email', status: 'started' });
  const endpoint = (await created('POST', '/api/v4/webhooks', { name: 'Ops', url: 'https://hooks.example.com/in', events: ['review.received'] })).endpoint;
  const apiKey = await created('POST', `/admin/v1/accounts/${a}/api-keys`, { node_id: p, scopes: ['reviews:read'] });

  const answer = { question_id: 'nps', question_type: 'nps', value: 9, numeric_value: 9, comment: 'ok', answered_at: '2026-03-02T08:01:00Z' };
  const routes: WriteRoute[] = [
    {
      method: 'POST', url: '/api/v4/guests',
      base: { email: 'fuzz@example.com', property_id: p, first_name: 'Ann', custom_fields: { x: 'y' }, reservation: { external_id: 'R-1', check_in: '2026-12-01', custom_fields: { room: '1' } } },
      fields: ['email', 'first_name', 'phone', 'language_code', 'country_code', 'custom_fields.x', 'custom_fields', 'reservation.external_id',
        'reservation.check_in', 'reservation.check_out', 'reservation.checked_in_at', 'reservation.checked_out_at', 'reservation.channel', 'reservation.custom_fields.n'],
    },
    { method: 'POST', url: '/api/v4/webhooks', base: { name: 'Hook', url: 'https://hooks.example.com/x', events: ['review.received'] }, fields: ['name', 'url', 'events.0'] },
    { method: 'PATCH', url: `/api/v4/webhooks/${endpoint.id}`, base: { name: 'Hook' }, fields: ['name', 'url', 'is_active'] },
    { method: 'POST', url: '/admin/v1/accounts', base: { name: 'Fuzz' }, fields: ['name', 'webhook_endpoint_limit', 'plan_features.0'] },
    { method: 'PATCH', url: `/admin/v1/accounts/${a}`, base: { name: 'Hotel Group' }, fields: ['name', 'webhook_endpoint_limit'] },
    { method: 'POST', url: `/admin/v1/accounts/${a}/nodes`, base: { name: 'Annex', type: 'property', parent_id: tree.regions[1] }, fields: ['name', 'type'] },
    { method: 'POST', url: `/admin/v1/accounts/${a}/api-keys`, base: { node_id: p, scopes: ['reviews:read'] }, fields: ['scopes.0', 'node_id'] },
    { method: 'POST', url: `/admin/v1/accounts/${a}/alert-rules`, base: { node_id: p, max_rating: 2 }, fields: ['max_rating', 'keywords.0', 'sentiments.0'] },
    {
      method: 'POST', url: `/admin/v1/accounts/${a}/reviews`,
      base: { node_id: p, platform: 'google', external_id: 'fuzz-1', reviewed_at: '2026-03-01T10:00:00Z', rating: 4, text: 'Fine', owner_reply: 'Thanks' },
      fields: ['reviewed_at', 'replied_at', 'rating', 'rating_normalized', 'author', 'title', 'text', 'url', 'language', 'external_id', 'platform', 'owner_reply'],
    },
    { method: 'PATCH', url: `/admin/v1/reviews/${review.id}`, base: { is_hidden: false }, fields: ['is_hidden'] },
    { method: 'PUT', url: `/admin/v1/reviews/${review.id}/reply`, base: { text: 'Thank you' }, fields: ['text', 'replied_at'] },
    {
      method: 'POST', url: `/admin/v1/reviews/${review.id}/mentions`,
      base: { canonical_label_id: topic.id, text: 'eggs', source_field: 'text', confidence: 0.5 }, fields: ['text', 'source_field', 'confidence', 'created_at'],
    },
    { method: 'POST', url: `/admin/v1/accounts/${a}/recommendations`, base: { title: 'T', body: 'B', priority: 'high' }, fields: ['title', 'body', 'priority', 'impact', 'created_at'] },
    { method: 'POST', url: `/admin/v1/accounts/${a}/topics`, base: { name: 'Pool' }, fields: ['name', 'language', 'created_at'] },
    { method: 'POST', url: '/admin/v1/topics', base: { name: 'Global' }, fields: ['name', 'created_at'] },
    {
      method: 'POST', url: `/admin/v1/accounts/${a}/surveys`, base: { node_id: p, name: 'S', definition: { pages: [] }, status: 'published' },
      fields: ['name', 'description', 'primary_language', 'created_at', 'published_at', 'definition.x'],
    },
    {
      method: 'POST', url: `/admin/v1/surveys/${survey.id}/responses`,
      base: { node_id: p, channel: 'email', status: 'completed', overall_score: 9, started_at: '2026-03-02T08:00:00Z', answers: [answer] },
      fields: ['overall_score', 'started_at', 'completed_at', 'channel', 'respondent_email', 'token', 'context.x',
        'answers.0.numeric_value', 'answers.0.answered_at', 'answers.0.value', 'answers.0.comment', 'answers.0.question_id'],
    },
    { method: 'POST', url: `/admin/v1/responses/${started.id}/complete`, base: {}, fields: ['completed_at'] },
    { method: 'POST', url: `/admin/v1/accounts/${a}/guests/unsubscribe`, base: { property_id: p, email: 'fuzz@example.com' }, fields: ['email'] },
  ];
  for (const route of routes) {
    for (const field of route.fields) {
      for (const raw of HOSTILE) await write(route.method, route.url, withRaw(route.base, field, raw));
    }
  }
  // Routes without a body of their own take the hostile bodies too (they must refuse or ignore them).
  for (const url of [`/admin/v1/surveys/${draft.id}/publish`, `/api/v4/webhooks/${endpoint.id}/test`]) {
    for (const raw of ['{}', '{"x":"\\ud800"}', '{"x":1e309}']) await write('POST', url, raw);
  }
  await write('POST', `/admin/v1/accounts/${a}/guests/erase`, JSON.stringify({ property_id: p, email: 'erased@example.com' }));
  await write('DELETE', `/admin/v1/api-keys/${apiKey.id}`);

  // repute import: the same hostile values in each record type's fields, one line each.
  const lineBases: [Record<string, unknown>, string[]][] = [
    [{ type: 'review', account_id: a, node_id: p, platform: 'import', external_id: 'imp-1', reviewed_at: '2026-03-01T10:00:00Z', rating: 3 },
      ['reviewed_at', 'replied_at', 'rating', 'rating_normalized', 'text', 'external_id']],
    [{ type: 'survey', account_id: a, node_id: p, name: 'Imported', definition: {}, status: 'published' }, ['created_at', 'published_at', 'name']],
    [{ type: 'response', account_id: a, survey_id: survey.id, node_id: p, channel: 'import', status: 'completed', answers: [answer] },
      ['overall_score', 'started_at', 'completed_at', 'answers.0.numeric_value', 'answers.0.answered_at', 'answers.0.value']],
    [{ type: 'topic', account_id: a, name: 'Imported topic' }, ['name', 'created_at']],
    [{ type: 'mention', account_id: a, review_id: review.id, canonical_label_id: topic.id, text: 'x', source_field: 'text' }, ['text', 'confidence', 'created_at']],
    [{ type: 'recommendation', account_id: a, title: 'T', body: 'B', priority: 'low' }, ['title', 'created_at']],
  ];
  const lines = lineBases.flatMap(([base, fields]) => fields.flatMap((field) => HOSTILE.map((raw) => withRaw(base, field, raw))));
  const summary = await importNdjson(t.testDb.database, Readable.from([`${lines.join('\n')}\n`]), { batchSize: 50 });
  const importRefused = summary.rejected_lines.length;
  figures.tried += summary.lines;
  figures.accepted += summary.lines - importRefused;
  figures.refused += importRefused;

  // Every read route of both APIs, with a key of the account root (all scopes) and the admin token.
  const read = async (url: string): Promise<any> => {
    const r = await send('GET', url);
    figures.reads += 1;
    if (r.statusCode >= 500) figures.fiveHundreds.push(`GET ${url} → ${r.statusCode} ${r.body}`);
    return r.statusCode === 200 ? r.json() : null;
  };
  const all = async (path: string): Promise<any[]> => {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await read(`/api/v4${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      if (page === null) break;
      items.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return items;
  };
  for (const path of ['/whoami', '/nodes', '/analytics/scores', '/insights/topics', '/webhooks']) await read(`/api/v4${path}`);
  for (const r of await all('/reviews')) await read(`/api/v4/reviews/${r.id}`);
  await all('/insights/recommendations');
  await all('/insights/mentions');
  for (const s of await all('/surveys')) {
    await read(`/api/v4/surveys/${s.id}`);
    for (const response of await all(`/surveys/${s.id}/responses`)) await read(`/api/v4/surveys/${s.id}/responses/${response.id}/answers`);
  }
  for (const w of (await read('/api/v4/webhooks'))?.data ?? []) await read(`/api/v4/webhooks/${w.id}/deliveries`);
  for (const d of (await read(`/admin/v1/accounts/${a}/deliveries`))?.data ?? []) await read(`/admin/v1/deliveries/${d.id}`);
  const guests = await t.ctx.db.selectFrom('guests').select(['property_id', 'email']).where('account_id', '=', a).execute();
  for (const g of guests) await read(`/admin/v1/accounts/${a}/guests?property_id=${g.property_id}&email=${encodeURIComponent(g.email ?? '')}`);

  console.log(`write-then-read fuzz [${t.dialect}]: ${figures.tried} writes tried (${figures.tried - summary.lines} HTTP, ${summary.lines} import lines), `
    + `${figures.accepted} accepted, ${figures.refused} refused, ${figures.reads} reads, ${figures.fiveHundreds.length} answers 5xx`);
  assert.deepEqual(figures.fiveHundreds, []);
  assert.ok(figures.reads > 100 && guests.length > 0, 'the reads covered the data');
}, { env: { RATE_LIMIT_MAX: '1000000' } });
