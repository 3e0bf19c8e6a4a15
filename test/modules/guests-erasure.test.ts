// Guests: consent states, guest.* events in the outbox, and GDPR erasure (admin route, CLI, restart).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { sqlitePath } from '../../src/config.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { appendEvent } from '../../src/events/outbox.ts';
import { isUuid } from '../../src/lib/ids.ts';
import { createTestApp, SECRET_KEY, type TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';

const run = promisify(execFile);
const push = (t: TestApp, key: string, body: unknown) => t.api(key, 'POST', '/guests', body);
const show = (t: TestApp, accountId: string, propertyId: string, email: string) =>
  t.admin('GET', `/accounts/${accountId}/guests?property_id=${propertyId}&email=${encodeURIComponent(email)}`);

async function consentOf(t: TestApp, accountId: string, propertyId: string, email: string): Promise<string> {
  const r = await show(t, accountId, propertyId, email);
  assert.equal(r.statusCode, 200, r.body);
  return r.json().marketing_consent;
}

async function guestEvents(t: TestApp): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const rows = await t.ctx.db.selectFrom('events').select(['type', 'payload']).where('type', 'like', 'guest.%').orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.payload).data }));
}

/** Every row of every table, as text: what "searching the database" for a value looks at. */
async function everyRow(t: TestApp): Promise<string> {
  const tables = t.dialect === 'sqlite'
    ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.ctx.db)).rows.map((r) => r.name)
    : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(t.ctx.db)).rows.map((r) => r.name);
  assert.ok(tables.includes('guests') && tables.includes('reservations'));
  let text = '';
  for (const table of tables) {
    const rows = (await sql`select * from ${sql.table(table)}`.execute(t.ctx.db)).rows;
    text += JSON.stringify(rows).toLowerCase();
  }
  return text;
}

/** The SQLite database file and its write-ahead log, as lower-case text: where an erased value could linger. */
const sqliteFileText = (file: string): string =>
  Buffer.concat([readFileSync(file), ...(existsSync(`${file}-wal`) ? [readFileSync(`${file}-wal`)] : [])]).toString('latin1').toLowerCase();

eachDatabase('marketing_consent: unknown, granted, withdrawn; a withdrawal is never overridden by a grant', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const p = tree.properties[0];
  await push(t, key, { email: 'c@example.com' });
  assert.equal(await consentOf(t, tree.accountId, p, 'c@example.com'), 'unknown');
  await push(t, key, { email: 'c@example.com', first_name: 'C' });
  assert.equal(await consentOf(t, tree.accountId, p, 'c@example.com'), 'unknown', 'omitted consent keeps the state');
  await push(t, key, { email: 'c@example.com', marketing_consent: true });
  assert.equal(await consentOf(t, tree.accountId, p, 'c@example.com'), 'granted');
  await push(t, key, { email: 'c@example.com', marketing_consent: false });
  assert.equal(await consentOf(t, tree.accountId, p, 'c@example.com'), 'withdrawn');
  const regrant = await push(t, key, { email: 'c@example.com', marketing_consent: true });
  assert.equal(regrant.statusCode, 200);
  assert.equal(await consentOf(t, tree.accountId, p, 'c@example.com'), 'withdrawn');

  await push(t, key, { email: 'new-withdrawn@example.com', marketing_consent: false });
  assert.equal(await consentOf(t, tree.accountId, p, 'new-withdrawn@example.com'), 'withdrawn');
  await push(t, key, { email: 'new-granted@example.com', marketing_consent: true });
  assert.equal(await consentOf(t, tree.accountId, p, 'new-granted@example.com'), 'granted');
});

eachDatabase('guest.created on create only, guest.unsubscribed when consent becomes withdrawn; payload is ids only', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const p = tree.properties[0];
  const created = (await push(t, key, { email: 'ev@example.com', first_name: 'Eve', marketing_consent: true })).json();
  await push(t, key, { email: 'ev@example.com', last_name: 'Doe', reservation: { external_id: 'E-1' } });
  assert.deepEqual(await guestEvents(t), [{ type: 'guest.created', data: { guest_id: created.id, property_id: p } }]);

  await push(t, key, { email: 'ev@example.com', marketing_consent: false });
  await push(t, key, { email: 'ev@example.com', marketing_consent: false });
  await push(t, key, { email: 'ev@example.com', marketing_consent: true });
  const events = await guestEvents(t);
  assert.deepEqual(events.map((e) => e.type), ['guest.created', 'guest.unsubscribed']);
  assert.deepEqual(events[1]!.data, { guest_id: created.id, property_id: p });

  // The operator's unsubscribe: 200 each time, the event only when consent changes.
  const other = (await push(t, key, { email: 'op@example.com', marketing_consent: true })).json();
  for (let i = 0; i < 2; i++) {
    const r = await t.admin('POST', `/accounts/${tree.accountId}/guests/unsubscribe`, { property_id: p, email: ' OP@example.com ' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().marketing_consent, 'withdrawn');
  }
  const all = await guestEvents(t);
  assert.deepEqual(all.map((e) => e.type), ['guest.created', 'guest.unsubscribed', 'guest.created', 'guest.unsubscribed']);
  assert.deepEqual(all[3]!.data, { guest_id: other.id, property_id: p });
  assert.equal(JSON.stringify(all).includes('@'), false, 'no personal data in events');

  const missing = await t.admin('POST', `/accounts/${tree.accountId}/guests/unsubscribe`, { property_id: p, email: 'nobody@example.com' });
  assert.equal(missing.statusCode, 404);
});

eachDatabase('a push writes guest.created and its deliveries exactly as appendEvent does (paused endpoints too)', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const now = new Date().toISOString();
  const endpoint = (id: string, events: string[], active: number) => ({
    id, account_id: tree.accountId, name: id, url: 'https://crm.example/hook', events: JSON.stringify(events), is_active: active,
    secret_enc: 'x', created_at: now, updated_at: now,
  });
  await t.ctx.db.insertInto('webhook_endpoints').values([
    endpoint('01900000-0000-7000-8000-000000000001', ['guest.created'], 1),
    endpoint('01900000-0000-7000-8000-000000000002', ['review.received', 'guest.created'], 0),
    endpoint('01900000-0000-7000-8000-000000000003', ['guest.unsubscribed'], 1),
  ]).execute();
  const guest = (await push(t, key, { email: 'hook@example.com', reservation: { external_id: 'H-1' } })).json();
  const reference = await inTransaction(t.ctx.db, (trx) => appendEvent(trx, {
    accountId: tree.accountId, type: 'guest.created', data: { guest_id: guest.id, property_id: tree.properties[0] },
  }));

  const events = await t.ctx.db.selectFrom('events').selectAll().where('type', '=', 'guest.created').orderBy('id').execute();
  assert.equal(events.length, 2);
  const pushed = events.find((e) => e.id !== reference.id)!;
  const shape = (e: typeof pushed) => {
    const body = JSON.parse(e.payload);
    assert.equal(body.id, e.id);
    assert.equal(body.timestamp, e.created_at);
    return { account_id: e.account_id, type: e.type, body: { ...body, id: null, timestamp: null } };
  };
  assert.deepEqual(shape(pushed), shape(events.find((e) => e.id === reference.id)!));

  const deliveries = async (eventId: string) => (await t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('endpoint_id').execute())
    .map(({ id, event_id: _e, created_at, next_attempt_at, ...rest }) => {
      assert.ok(isUuid(id));
      assert.equal(next_attempt_at, created_at);
      return rest;
    });
  const mine = await deliveries(pushed.id);
  assert.deepEqual(mine.map((d) => d.endpoint_id), ['01900000-0000-7000-8000-000000000001', '01900000-0000-7000-8000-000000000002']);
  assert.deepEqual(mine, await deliveries(reference.id));
  // An update of the guest appends nothing more.
  await push(t, key, { email: 'hook@example.com', first_name: 'Hook' });
  assert.equal((await t.ctx.db.selectFrom('events').select('id').where('type', '=', 'guest.created').execute()).length, 2);
});

eachDatabase('the operator view: consent, custom fields and stays; 404 when absent; 400/404 for bad input', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  await push(t, key, { email: 'v@example.com', custom_fields: { vip: true }, reservation: { external_id: 'V-1', custom_fields: { room: 12 } } });
  const r = await show(t, tree.accountId, tree.properties[0], 'V@Example.com');
  assert.equal(r.statusCode, 200, r.body);
  const g = r.json();
  assert.equal(g.email, 'v@example.com');
  assert.equal(g.marketing_consent, 'unknown');
  assert.deepEqual(g.custom_fields, { vip: true });
  assert.equal(g.stays.length, 1);
  assert.deepEqual(g.stays[0].custom_fields, { room: 12 });

  assert.equal((await show(t, tree.accountId, tree.properties[0], 'none@example.com')).statusCode, 404);
  assert.equal((await show(t, tree.accountId, tree.properties[1], 'v@example.com')).statusCode, 404);
  const other = await createTree(t, { name: 'Other' });
  assert.equal((await show(t, other.accountId, tree.properties[0], 'v@example.com')).statusCode, 404, 'another account sees nothing');
  assert.equal((await show(t, '00000000-0000-4000-8000-000000000000', tree.properties[0], 'v@example.com')).statusCode, 404);
  assert.equal((await show(t, 'nope', tree.properties[0], 'v@example.com')).statusCode, 404);
  const bad = await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}`);
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error, /email/);
});

eachDatabase('erasure deletes the guest and its stays from every table and answers 409 for ever, also after a restart', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['guests:write']);
  const [p, q] = [tree.properties[0], tree.properties[2]];
  const body = {
    email: 'Gdpr.Person@Example.com', property_id: p, salutation: 'Dr', first_name: 'Zebulon', last_name: 'Quixotic', phone: '+4915550001',
    custom_fields: { passport: 'X1234567' }, reservation: { external_id: 'STAY-ERASE-1', channel: 'direct', custom_fields: { note: 'Zebulon likes tea' } },
  };
  const first = await push(t, key, body);
  assert.equal(first.statusCode, 201);
  await push(t, key, { ...body, reservation: { external_id: 'STAY-ERASE-2' } });
  const keep = await push(t, key, { ...body, property_id: q });
  assert.equal(keep.statusCode, 201);
  await push(t, key, { email: 'bystander@example.com', property_id: p, reservation: { external_id: 'STAY-OTHER' } });

  const erase = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: p, email: '  gdpr.person@EXAMPLE.com' });
  assert.equal(erase.statusCode, 200, erase.body);
  assert.equal(erase.json().guest_deleted, true);
  assert.equal(erase.json().stays_deleted, 2);

  // The guest at the other property is another guest, untouched; erase it too and nothing remains.
  assert.equal((await show(t, tree.accountId, q, 'gdpr.person@example.com')).statusCode, 200);
  assert.equal((await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: q, email: 'gdpr.person@example.com' })).statusCode, 200);
  const text = await everyRow(t);
  for (const needle of ['gdpr.person@example.com', 'zebulon', 'quixotic', '4915550001', 'x1234567', 'stay-erase-1']) {
    assert.equal(text.includes(needle), false, `${needle} is still stored`);
  }
  assert.ok(text.includes('bystander@example.com') && text.includes('stay-other'), 'other guests stay');
  if (t.dialect === 'sqlite') {
    const file = t.testDb.url.slice('sqlite:'.length);
    const bytes = sqliteFileText(file);
    assert.equal(bytes.includes('gdpr.person@example.com'), false, 'the address lingers in the SQLite file');
  }

  const again = await push(t, key, { email: 'gdpr.person@example.com', property_id: p });
  assert.equal(again.statusCode, 409, again.body);
  assert.match(again.json().error, /erased/);
  assert.equal((await push(t, key, { email: ' GDPR.person@example.com', property_id: p, reservation: { external_id: 'NEW' } })).statusCode, 409);
  const shown = await show(t, tree.accountId, p, 'gdpr.person@example.com');
  assert.equal(shown.statusCode, 404);
  assert.match(shown.json().error, /erased/);

  // A second instance on the same database (a restart) still refuses it.
  const restarted = await createTestApp(t.dialect, { database: t.testDb });
  try {
    const r = await restarted.api(key, 'POST', '/guests', { email: 'gdpr.person@example.com', property_id: p });
    assert.equal(r.statusCode, 409, r.body);
    assert.equal((await restarted.api(key, 'POST', '/guests', { email: 'fresh@example.com', property_id: p })).statusCode, 201);
  } finally {
    await restarted.close();
  }
});

test('an erasure that meets a reader holding an older snapshot empties the write-ahead log once the reader is done [sqlite]', async () => {
  const t = await createTestApp('sqlite');
  const file = sqlitePath(t.testDb.url);
  const reader = new SQLite(file);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
    assert.equal((await push(t, key, { email: 'snapshot.held@example.com' })).statusCode, 201);
    // A reader (a backup tool, the checkpointer thread) pins the snapshot that still holds the address.
    reader.prepare('begin').run();
    reader.prepare('select count(*) from guests').get();
    setTimeout(() => reader.prepare('commit').run(), 300);
    const erase = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: tree.properties[0], email: 'snapshot.held@example.com' });
    assert.equal(erase.statusCode, 200, erase.body);
    assert.equal(reader.inTransaction, false, 'the erasure answered while the reader still held its snapshot');
    const bytes = sqliteFileText(file);
    assert.equal(bytes.includes('snapshot.held@example.com'), false, 'the address lingers in the SQLite file');
  } finally {
    if (reader.inTransaction) reader.prepare('commit').run();
    reader.close();
    await t.close();
  }
});

eachDatabase('erasing an unknown guest records it; bad erase input answers 400/404', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const r = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: tree.properties[0], email: 'never@example.com' });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().guest_deleted, false);
  assert.equal((await push(t, key, { email: 'never@example.com' })).statusCode, 409);
  const twice = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, { property_id: tree.properties[0], email: 'never@example.com' });
  assert.equal(twice.statusCode, 200);
  assert.equal(twice.json().erased_at, r.json().erased_at);

  const other = await createTree(t, { name: 'Other' });
  for (const [body, status] of [
    [{ property_id: tree.regions[0], email: 'x@example.com' }, 400],
    [{ property_id: other.properties[0], email: 'x@example.com' }, 400],
    [{ property_id: tree.properties[0], email: 'not-an-email' }, 400],
    [{ property_id: tree.properties[0] }, 400],
    [{ property_id: tree.properties[0], email: 'x@example.com', extra: 1 }, 400],
  ] as const) {
    const res = await t.admin('POST', `/accounts/${tree.accountId}/guests/erase`, body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(typeof res.json().error, 'string');
  }
  assert.equal((await t.admin('POST', '/accounts/nope/guests/erase', { property_id: tree.properties[0], email: 'x@example.com' })).statusCode, 404);
});

/** DATABASE_URL a separate process uses to reach this test's database (its own PostgreSQL schema). */
function cliDatabaseUrl(t: TestApp): string {
  if (t.dialect === 'sqlite') return t.testDb.url;
  const url = new URL(t.testDb.url);
  url.searchParams.set('options', `-c search_path=${t.testDb.schema}`);
  return url.toString();
}

async function cli(t: TestApp, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/repute.mjs', ...args], {
      env: { ...process.env, DATABASE_URL: cliDatabaseUrl(t), REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

eachDatabase('CLI: repute guests show / unsubscribe / erase work on the same database as the server', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const p = tree.properties[0];
  const pushed = await push(t, key, { email: 'cli@example.com', first_name: 'Clio', marketing_consent: true, reservation: { external_id: 'CLI-1' } });
  assert.equal(pushed.statusCode, 201);
  const who = ['--account', tree.accountId, '--property', p, '--email', 'CLI@example.com'];

  const shown = await cli(t, 'guests', 'show', ...who);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(JSON.parse(shown.stdout).marketing_consent, 'granted');
  assert.equal(JSON.parse(shown.stdout).stays[0].external_id, 'CLI-1');

  const unsub = await cli(t, 'guests', 'unsubscribe', ...who);
  assert.equal(unsub.code, 0, unsub.stderr);
  assert.equal(JSON.parse(unsub.stdout).marketing_consent, 'withdrawn');
  assert.deepEqual((await guestEvents(t)).map((e) => e.type), ['guest.created', 'guest.unsubscribed']);

  const erased = await cli(t, 'guests', 'erase', ...who);
  assert.equal(erased.code, 0, erased.stderr);
  assert.deepEqual({ ...JSON.parse(erased.stdout), erased_at: null }, { property_id: p, erased: true, guest_deleted: true, stays_deleted: 1, erased_at: null });
  assert.equal((await push(t, key, { email: 'cli@example.com' })).statusCode, 409);
  assert.equal((await everyRow(t)).includes('cli@example.com'), false);

  const gone = await cli(t, 'guests', 'show', ...who);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /erased/);
  const bad = await cli(t, 'guests', 'erase', '--account', tree.accountId, '--property', 'x', '--email', 'a@b.com');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^repute: --property/);
  const help = await cli(t, 'guests', 'erase', '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--email/);
});
