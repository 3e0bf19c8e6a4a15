// POST /guests: create/update, every field limit, the property rules (422) and stays.
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';

const GUEST_FIELDS = [
  'country_code', 'created_at', 'email', 'first_name', 'id', 'language_code', 'last_name', 'phone', 'property_id',
  'salutation', 'source', 'updated_at',
];
const RESERVATION_FIELDS = [
  'channel', 'check_in', 'check_out', 'checked_in_at', 'checked_out_at', 'created_at', 'external_id', 'id',
  'raw_status', 'status', 'updated_at',
];

const push = (t: TestApp, key: string, body: unknown) => t.api(key, 'POST', '/guests', body);

async function stored(t: TestApp, accountId: string, propertyId: string, email: string): Promise<any> {
  const r = await t.admin('GET', `/accounts/${accountId}/guests?property_id=${propertyId}&email=${encodeURIComponent(email)}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

let counter = 0;
const email = () => `guest${++counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;

eachDatabase('POST /guests creates (201) then updates in place (200) with the Guest fields', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);

  const first = await push(t, key, { email: '  Ann.Lee@Example.COM ', first_name: 'Ann', phone: '+41 44 000 00 00', country_code: 'ch', language_code: 'de-ch' });
  assert.equal(first.statusCode, 201, first.body);
  const created = first.json();
  assert.deepEqual(Object.keys(created).sort(), GUEST_FIELDS);
  assert.equal(created.email, 'ann.lee@example.com');
  assert.equal(created.source, 'api');
  assert.equal(created.property_id, tree.properties[0]);
  assert.equal(created.country_code, 'CH');
  assert.equal(created.language_code, 'de-CH');
  assert.equal(created.last_name, null);
  assert.equal(created.created_at, created.updated_at);

  const second = await push(t, key, { email: 'ann.lee@example.com', last_name: 'Lee', phone: null });
  assert.equal(second.statusCode, 200, second.body);
  const updated = second.json();
  assert.equal(updated.id, created.id);
  assert.equal(updated.first_name, 'Ann', 'omitted fields are kept');
  assert.equal(updated.last_name, 'Lee', 'sent fields replace');
  assert.equal(updated.phone, null, 'null clears a field');
  assert.equal(updated.country_code, 'CH');
  assert.equal(updated.created_at, created.created_at);
  assert.ok(updated.updated_at >= created.updated_at);
  assert.equal('reservation' in updated, false, 'reservation only when pushed');

  const same = await push(t, key, { email: 'ANN.LEE@example.com' });
  assert.equal(same.statusCode, 200);
  assert.equal(same.json().id, created.id);
});

eachDatabase('custom_fields merge key by key on the guest and on the stay', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const address = email();
  await push(t, key, { email: address, custom_fields: { vip: true, tier: 'gold', visits: 3 }, reservation: { external_id: 'R-1', custom_fields: { room: '101' } } });
  const r = await push(t, key, { email: address, custom_fields: { tier: 'platinum', pillow: 'soft' }, reservation: { external_id: 'R-1', custom_fields: { late: true } } });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal('custom_fields' in r.json(), false);
  const guest = await stored(t, tree.accountId, tree.properties[0], address);
  assert.deepEqual(guest.custom_fields, { vip: true, tier: 'platinum', visits: 3, pillow: 'soft' });
  assert.deepEqual(guest.stays[0].custom_fields, { room: '101', late: true });
  assert.equal(guest.marketing_consent, 'unknown');
});

/** [body patch that is exactly at a limit, body patch one past it, field the error must name] */
function limitCases(): Array<[string, Record<string, unknown>, Record<string, unknown>]> {
  const local = 'a'.repeat(64);
  const domain = (n: number) => `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(n - 3 - 189)}`;
  const at = `${local}@${domain(255)}`;
  assert.equal(at.length, 320);
  const stay = (patch: Record<string, unknown>) => ({ reservation: { external_id: `R-${Math.random()}`, ...patch } });
  return [
    ['email', { email: `  ${at.toUpperCase()}  ` }, { email: `${local}@${domain(256)}` }],
    ['email', { email: 'x@example.travel' }, { email: 'not-an-email' }],
    ['email', { email: 'first.last+tag@sub.example.co.uk' }, { email: 'two@@example.com' }],
    ['salutation', { salutation: 's'.repeat(50) }, { salutation: 's'.repeat(51) }],
    ['first_name', { first_name: 'f'.repeat(200) }, { first_name: 'f'.repeat(201) }],
    ['last_name', { last_name: 'l'.repeat(200) }, { last_name: 'l'.repeat(201) }],
    ['phone', { phone: '1'.repeat(40) }, { phone: '1'.repeat(41) }],
    ['country_code', { country_code: 'DE' }, { country_code: 'DEU' }],
    ['country_code', { country_code: 'us' }, { country_code: 'XX' }],
    ['country_code', { country_code: 'GB' }, { country_code: 'D' }],
    ['language_code', { language_code: 'pt-BR' }, { language_code: 'pt-BRA' }],
    ['language_code', { language_code: 'deu' }, { language_code: 'german' }],
    ['language_code', { language_code: 'en' }, { language_code: 'e1' }],
    ['custom_fields', { custom_fields: { a: 's', n: 1.5, b: false } }, { custom_fields: { a: null } }],
    ['custom_fields', { custom_fields: { a: 's' } }, { custom_fields: { a: { nested: 1 } } }],
    ['custom_fields', { custom_fields: { a: 0 } }, { custom_fields: { a: [1] } }],
    ['custom_fields', { custom_fields: {} }, { custom_fields: 'vip' }],
    ['external_id', stay({ external_id: 'x'.repeat(255) }), stay({ external_id: 'x'.repeat(256) })],
    ['external_id', stay({ external_id: 'x' }), stay({ external_id: '' })],
    ['status', stay({ status: 'no_show' }), stay({ status: 'checked-out' })],
    ['raw_status', stay({ raw_status: 'r'.repeat(120) }), stay({ raw_status: 'r'.repeat(121) })],
    ['channel', stay({ channel: 'c'.repeat(120) }), stay({ channel: 'c'.repeat(121) })],
    ['check_in', stay({ check_in: '2026-11-22' }), stay({ check_in: '2026-02-30' })],
    ['check_in', stay({ check_in: '2026-11-22T14:00:00+01:00' }), stay({ check_in: '2026-11-22T14:00:61' })],
    ['check_out', stay({ check_out: '2026-11-24T11:00:00Z' }), stay({ check_out: '24/11/2026' })],
    ['checked_in_at', stay({ checked_in_at: '2026-11-22T15:04:05.123+01:00' }), stay({ checked_in_at: 'yesterday' })],
    ['checked_out_at', stay({ checked_out_at: '2026-11-24' }), stay({ checked_out_at: 20261124 })],
    ['check_out', stay({ check_in: '2026-11-22', check_out: '2026-11-22' }), stay({ check_in: '2026-11-22', check_out: '2026-11-21' })],
    ['marketing_consent', { marketing_consent: false }, { marketing_consent: 'yes' }],
    ['first_name', { first_name: null }, { first_name: 42 }],
    ['reservation', stay({}), { reservation: 'R-1' }],
    ['unknown_field', { email: 'ok@example.com' }, { unknown_field: 1 }],
    ['nickname', stay({}), { reservation: { external_id: 'R-9', nickname: 'x' } }],
  ];
}

eachDatabase('every field is accepted at its limit and rejected one past it, naming the field', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  for (const [field, ok, bad] of limitCases()) {
    const accepted = await push(t, key, { email: email(), ...ok });
    assert.ok(accepted.statusCode === 201 || accepted.statusCode === 200, `${field} ${JSON.stringify(ok).slice(0, 80)}: ${accepted.body}`);
    const rejected = await push(t, key, { email: email(), ...bad });
    assert.equal(rejected.statusCode, 400, `${field} ${JSON.stringify(bad).slice(0, 80)}: ${rejected.body}`);
    assert.match(rejected.json().error, new RegExp(field), `${field}: ${rejected.body}`);
  }
  // The trimmed form is what is stored.
  const r = await push(t, key, { email: `  ${'A'.repeat(10)}@Example.com\t` });
  assert.equal(r.json().email, 'aaaaaaaaaa@example.com');
});

eachDatabase('malformed JSON, wrong body types and a missing e-mail answer 400 with the error envelope', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const send = (payload: string) => t.app.inject({
    method: 'POST', url: '/api/v4/guests', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload,
  });
  const raw = await send('{"email": "a@b.com",');
  assert.equal(raw.statusCode, 400);
  assert.match(raw.json().error, /JSON/);
  for (const body of [[], 'x', 42, null, { first_name: 'Ann' }, { email: 5 }, { email: null }, { email: 'a@b.com', property_id: 'p1' }]) {
    const r = await send(JSON.stringify(body));
    assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
    assert.equal(typeof r.json().error, 'string');
  }
  const huge = await push(t, key, { email: 'a@b.com', custom_fields: { n: Number.POSITIVE_INFINITY } });
  assert.equal(huge.statusCode, 400, huge.body);
  assert.match(huge.json().error, /custom_fields\.n/);
});

eachDatabase('property rules: omitted for a property key, required for a group key, a property inside the subtree (422)', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other group' });
  const propertyKey = await createKey(t, tree.accountId, tree.properties[1], ['guests:write']);
  const regionKey = await createKey(t, tree.accountId, tree.regions[0], ['guests:write']);
  const rootKey = await createKey(t, tree.accountId, tree.root, ['guests:write']);

  const own = await push(t, propertyKey, { email: email() });
  assert.equal(own.statusCode, 201, own.body);
  assert.equal(own.json().property_id, tree.properties[1]);
  assert.equal((await push(t, propertyKey, { email: email(), property_id: tree.properties[1] })).statusCode, 201);

  const viaRegion = await push(t, regionKey, { email: email(), property_id: tree.properties[0] });
  assert.equal(viaRegion.statusCode, 201, viaRegion.body);
  assert.equal(viaRegion.json().property_id, tree.properties[0]);
  assert.equal((await push(t, rootKey, { email: email(), property_id: tree.properties[2] })).statusCode, 201);

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [regionKey, {}, /property_id is required: the key is bound to a region node, not a property/],
    [rootKey, {}, /property_id is required/],
    [regionKey, { property_id: tree.properties[2] }, /not within the key's scope/],
    [propertyKey, { property_id: tree.properties[0] }, /not within the key's scope/],
    [regionKey, { property_id: other.properties[0] }, /not within the key's scope/],
    [rootKey, { property_id: '00000000-0000-4000-8000-000000000000' }, /not within the key's scope/],
    [rootKey, { property_id: tree.regions[1] }, /not a property/],
    [regionKey, { property_id: tree.regions[0] }, /not a property/],
    [rootKey, { property_id: tree.root }, /not a property/],
  ];
  for (const [key, patch, message] of cases) {
    const r = await push(t, key, { email: email(), ...patch });
    assert.equal(r.statusCode, 422, `${JSON.stringify(patch)}: ${r.body}`);
    assert.match(r.json().error, message);
  }
});

eachDatabase('the same e-mail at two properties is two guests; identity is (property, e-mail)', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['guests:write']);
  const a = await push(t, key, { email: 'same@example.com', property_id: tree.properties[0] });
  const b = await push(t, key, { email: 'same@example.com', property_id: tree.properties[2] });
  assert.equal(a.statusCode, 201);
  assert.equal(b.statusCode, 201);
  assert.notEqual(a.json().id, b.json().id);
});

eachDatabase('stays: created booked, updated in place through their states, many per guest', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const address = email();
  const first = await push(t, key, {
    email: address, reservation: { external_id: 'PMS-1001', check_in: '2026-12-01', check_out: '2026-12-03T11:00:00+01:00', channel: 'booking.com', raw_status: 'RES' },
  });
  assert.equal(first.statusCode, 201, first.body);
  const stay = first.json().reservation;
  assert.deepEqual(Object.keys(stay).sort(), RESERVATION_FIELDS);
  assert.equal(stay.status, 'booked');
  assert.equal(stay.check_in, '2026-12-01T00:00:00.000Z');
  assert.equal(stay.check_out, '2026-12-03T10:00:00.000Z');
  assert.equal(stay.raw_status, 'RES');

  for (const [status, extra] of [['arrived', { checked_in_at: '2026-12-01T15:00:00Z', raw_status: 'INH' }], ['checked_out', { checked_out_at: '2026-12-03T09:30:00Z' }]] as const) {
    const r = await push(t, key, { email: address, reservation: { external_id: 'PMS-1001', status, ...extra } });
    assert.equal(r.statusCode, 200, r.body);
    const s = r.json().reservation;
    assert.equal(s.id, stay.id, 'the stay is updated in place');
    assert.equal(s.status, status);
    assert.equal(s.channel, 'booking.com', 'omitted stay fields are kept');
    assert.equal(s.created_at, stay.created_at);
  }
  const noStatus = await push(t, key, { email: address, reservation: { external_id: 'PMS-1001', channel: 'direct' } });
  assert.equal(noStatus.json().reservation.status, 'checked_out', 'an omitted status keeps the stored one');

  for (const [ref, status] of [['PMS-1002', 'cancelled'], ['PMS-1003', 'no_show'], ['PMS-1004', undefined]] as const) {
    const r = await push(t, key, { email: address, reservation: { external_id: ref, ...(status ? { status } : {}) } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().reservation.status, status ?? 'booked');
  }
  const guest = await stored(t, tree.accountId, tree.properties[0], address);
  assert.deepEqual(guest.stays.map((s: any) => [s.external_id, s.status]).sort(), [
    ['PMS-1001', 'checked_out'], ['PMS-1002', 'cancelled'], ['PMS-1003', 'no_show'], ['PMS-1004', 'booked'],
  ]);
  assert.equal(guest.stays.find((s: any) => s.external_id === 'PMS-1001').checked_in_at, '2026-12-01T15:00:00.000Z');

  // check_out alone, before the stored check_in, is refused and changes nothing.
  const bad = await push(t, key, { email: address, reservation: { external_id: 'PMS-1001', check_out: '2026-11-30' } });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.match(bad.json().error, /check_out/);
  const after = await stored(t, tree.accountId, tree.properties[0], address);
  assert.equal(after.stays.find((s: any) => s.external_id === 'PMS-1001').check_out, '2026-12-03T10:00:00.000Z');
});

eachDatabase('a stay pushed with another guest moves to that guest; the same reference at another property is another stay', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['guests:write']);
  const booker = email();
  const traveller = email();
  const a = await push(t, key, { email: booker, property_id: tree.properties[0], reservation: { external_id: 'R-77' } });
  const b = await push(t, key, { email: traveller, property_id: tree.properties[0], reservation: { external_id: 'R-77', status: 'arrived' } });
  assert.equal(b.statusCode, 201, b.body);
  assert.equal(b.json().reservation.id, a.json().reservation.id);
  assert.equal((await stored(t, tree.accountId, tree.properties[0], booker)).stays.length, 0);
  assert.deepEqual((await stored(t, tree.accountId, tree.properties[0], traveller)).stays.map((s: any) => s.status), ['arrived']);

  const elsewhere = await push(t, key, { email: booker, property_id: tree.properties[2], reservation: { external_id: 'R-77' } });
  assert.notEqual(elsewhere.json().reservation.id, a.json().reservation.id);
});

eachDatabase('null in an optional push field that is not a value to clear means the same as leaving it out', async (t) => {
  const tree = await createTree(t);
  const hotel = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const first = await push(t, hotel, { email: 'nulls@example.com', property_id: null, marketing_consent: true, custom_fields: { room: 12 }, reservation: { external_id: 'N1', status: null, custom_fields: null } });
  assert.equal(first.statusCode, 201, first.body);
  assert.equal(first.json().property_id, tree.properties[0]);
  assert.equal(first.json().reservation.status, 'booked');
  const again = await push(t, hotel, { email: 'nulls@example.com', marketing_consent: null, custom_fields: null, reservation: null, phone: '+41 44 000 00 00' });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().reservation, undefined);
  const stored = (await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=nulls@example.com`)).json();
  assert.equal(stored.marketing_consent, 'granted');
  assert.deepEqual(stored.custom_fields, { room: 12 });
  // A group's key still has to name the property: null is "missing", 422 as the spec says.
  const group = await createKey(t, tree.accountId, tree.regions[0], ['guests:write']);
  const missing = await push(t, group, { email: 'nulls@example.com', property_id: null });
  assert.equal(missing.statusCode, 422, missing.body);
  assert.match(missing.json().error, /property_id is required/);
});
