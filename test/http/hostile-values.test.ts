// One rule for timestamps (a real instant 1970–9999, offset applied, stored UTC with ms), finite
// numbers in range, and well-formed text without NUL, on every write path: admin, public, import.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { importNdjson } from '../../src/import/run.ts';
import { ADMIN_TOKEN, type TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';

/** A JSON text sent as is: JSON.stringify cannot write 1e309. */
const raw = (t: TestApp, method: 'POST' | 'PUT' | 'PATCH', url: string, payload: string, key?: string) =>
  t.app.inject({ method, url, payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${key ?? ADMIN_TOKEN}` } });

function refused(r: { statusCode: number; body: string; json(): any }, pattern: RegExp): void {
  assert.equal(r.statusCode, 400, r.body);
  assert.match(r.json().error, pattern);
}

eachDatabase('a lone surrogate or NUL in a guest push answers 400 naming the field, and the guest stays pushable', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const push = (body: string) => raw(t, 'POST', '/api/v4/guests', body, key);
  refused(await push('{"email":"ann@example.com","custom_fields":{"x":"\\ud800"}}'), /^body\.custom_fields\.x must be well-formed Unicode/);
  refused(await push('{"email":"ann@example.com","custom_fields":{"\\udc00":"x"}}'), /^body\.custom_fields\.\S+ \(a key\) must be well-formed Unicode/);
  refused(await push('{"email":"ann@example.com","reservation":{"external_id":"R\\ud83d"}}'), /^body\.reservation\.external_id must be well-formed Unicode/);
  refused(await push('{"email":"ann@example.com","first_name":"A\\u0000"}'), /^body\.first_name must not contain the NUL character/);
  refused(await push('{"email":"ann@example.com","custom_fields":{"n":1e309}}'), /^body\.custom_fields\.n must be a finite number/);
  // A well-formed pair (an emoji) is fine, and nothing of the refused pushes was stored.
  const first = await push('{"email":"ann@example.com","custom_fields":{"x":"\\ud83d\\ude00"}}');
  assert.equal(first.statusCode, 201, first.body);
  assert.equal((await push('{"email":"ann@example.com","first_name":"Ann"}')).statusCode, 200);
});

eachDatabase('lone surrogates are refused in the bodies of admin routes and import lines too', async (t) => {
  const tree = await createTree(t);
  refused(await raw(t, 'POST', '/admin/v1/accounts', '{"name":"\\ud800"}'), /^body\.name must be well-formed Unicode/);
  refused(await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/reviews`,
    `{"node_id":"${tree.properties[0]}","platform":"g","external_id":"1","reviewed_at":"2026-01-01T00:00:00Z","text":"ok \\udfff"}`), /^body\.text must be well-formed Unicode/);
  refused(await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/surveys`,
    `{"node_id":"${tree.properties[0]}","name":"S","status":"draft","definition":{"q":["\\ud800"]}}`), /^body\.definition\.q\.0 must be well-formed Unicode/);
  const rejected: string[] = [];
  const summary = await importNdjson(t.testDb.database, Readable.from([
    `{"type":"topic","account_id":"${tree.accountId}","name":"bad \\ud800"}\n{"type":"topic","account_id":"${tree.accountId}","name":"good"}\n`,
  ]), { onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) });
  assert.deepEqual(summary.rejected_lines, [1]);
  assert.match(rejected[0]!, /name must be well-formed Unicode/);
  assert.equal(summary.created.topic, 1);
});

eachDatabase('timestamps are real instants between 1970 and 9999 once their offset is applied, stored in UTC with ms', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const survey = (extra: string) => raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/surveys`,
    `{"node_id":"${tree.properties[0]}","name":"S","status":"published","definition":{}${extra}}`);
  const RULE = /must be a date-time with an offset .* between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59\.999Z$/;
  for (const value of ['9999-12-31T23:59:59-23:59', '1970-01-01T00:30:00+01:00', '1969-12-31T23:59:59.999Z', '2016-12-31T23:59:60Z',
    '2026-02-29T10:00:00Z', '2026-11-22T10:00:00+24:00', '2026-11-22T10:00:00', '+010000-01-01T00:00:00Z']) {
    refused(await survey(`,"published_at":"${value}"`), new RegExp(`^body\\.published_at ${RULE.source}`));
  }
  refused(await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/reviews`,
    `{"node_id":"${tree.properties[0]}","platform":"g","external_id":"1","reviewed_at":"2016-12-31T23:59:60Z"}`), /^body\.reviewed_at must be a date-time/);

  const accepted: [string, string][] = [
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'], ['9999-12-31T23:59:59.9999+00:00', '9999-12-31T23:59:59.999Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'], ['1970-01-01T05:30:00+05:30', '1970-01-01T00:00:00.000Z'],
    ['2026-11-22t10:00:00.123456789-02:00', '2026-11-22T12:00:00.123Z'], ['2026-11-22 10:00:00z', '2026-11-22T10:00:00.000Z'],
  ];
  for (const [sent, stored] of accepted) {
    const r = await survey(`,"created_at":"${sent}","published_at":"${sent}"`);
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().published_at, stored);
  }
  const page = await t.api(key, 'GET', '/surveys?limit=100');
  assert.equal(page.statusCode, 200, page.body);
  assert.equal(page.json().data.length, accepted.length);

  // Guest push dates follow the same rule (and also take a plain date).
  const guests = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  refused(await raw(t, 'POST', '/api/v4/guests', '{"email":"a@example.com","reservation":{"external_id":"R","check_in":"9999-12-31T23:59:59-23:59"}}', guests),
    /^body\.reservation\.check_in must be an ISO 8601 date/);
  refused(await raw(t, 'POST', '/api/v4/guests', '{"email":"a@example.com","reservation":{"external_id":"R","checked_out_at":"2016-12-31T23:59:60Z"}}', guests),
    /^body\.reservation\.checked_out_at must be an ISO 8601 date/);
  // A stay's date-time without an offset (ISO 8601 allows it; property systems send local time) is read as UTC, as a date is.
  for (const [sent, stored] of [['2026-12-05T10:00:00', '2026-12-05T10:00:00.000Z'], ['2026-12-05 10:00', '2026-12-05T10:00:00.000Z'], ['2026-12-05T10:00:00.5', '2026-12-05T10:00:00.500Z']] as const) {
    const r = await raw(t, 'POST', '/api/v4/guests', `{"email":"local@example.com","reservation":{"external_id":"L${sent.length}","check_in":"${sent}"}}`, guests);
    assert.ok(r.statusCode === 201 || r.statusCode === 200, r.body);
    assert.equal(r.json().reservation.check_in, stored, sent);
  }
  refused(await raw(t, 'POST', '/api/v4/guests', '{"email":"a@example.com","reservation":{"external_id":"R","check_in":"2026-12-05T25:00:00"}}', guests),
    /^body\.reservation\.check_in must be an ISO 8601 date/);
});

eachDatabase('numbers are finite and within their documented range: 1e309 and out-of-range scores answer 400', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const created = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.properties[0], name: 'S', status: 'published', definition: {} });
  const response = (body: string) => raw(t, 'POST', `/admin/v1/surveys/${created.json().id}/responses`,
    `{"node_id":"${tree.properties[0]}","channel":"email","status":"completed",${body}}`);
  refused(await response('"overall_score":1e309'), /^body\.overall_score must be a finite number$/);
  refused(await response('"overall_score":1000000000001'), /^body\.overall_score must be <= 1000000000000$/);
  refused(await response('"answers":[{"question_id":"q","question_type":"nps","value":1,"numeric_value":-1e309}]'), /^body\.answers\.0\.numeric_value must be a finite number$/);
  refused(await response('"answers":[{"question_id":"q","question_type":"nps","value":[1e309]}]'), /^body\.answers\.0\.value\.0 must be a finite number$/);
  refused(await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/reviews`,
    `{"node_id":"${tree.properties[0]}","platform":"g","external_id":"1","reviewed_at":"2026-01-01T00:00:00Z","rating":1e309}`), /^body\.rating must be a finite number$/);
  assert.equal((await response('"overall_score":-1000000000000,"answers":[{"question_id":"q","question_type":"n","value":1,"numeric_value":1e12}]')).statusCode, 201);
  for (const path of ['/surveys', `/surveys/${created.json().id}/responses`]) {
    const r = await t.api(key, 'GET', path);
    assert.equal(r.statusCode, 200, r.body);
  }
});

eachDatabase('a value nested more than 100 levels deep answers 400 naming where, on admin and public routes alike', async (t) => {
  const tree = await createTree(t);
  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const survey = await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/surveys`,
    `{"node_id":"${tree.properties[0]}","name":"S","status":"published","definition":{"pages":[]}}`);
  assert.equal(survey.statusCode, 201, survey.body);
  const response = (value: string, context = '{}') => raw(t, 'POST', `/admin/v1/surveys/${survey.json().id}/responses`,
    `{"node_id":"${tree.properties[0]}","channel":"email","status":"completed","context":${context},"answers":[{"question_id":"q1","question_type":"text","value":${value},"numeric_value":null}]}`);
  // 5,000 levels made JSON.stringify overflow the stack: a 500 before.
  refused(await response(nested(5000)), /^body\.answers\.0\.value(\.0)+ must not nest objects and arrays more than 100 levels deep$/);
  refused(await response('1', `{"a":${nested(5000)}}`), /^body\.context\.a(\.0)+ must not nest objects and arrays more than 100 levels deep$/);
  refused(await raw(t, 'POST', `/admin/v1/accounts/${tree.accountId}/surveys`,
    `{"node_id":"${tree.properties[0]}","name":"S","status":"draft","definition":{"x":${nested(8000)}}}`), /must not nest objects and arrays more than 100 levels deep$/);
  const key = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  refused(await raw(t, 'POST', '/api/v4/guests', `{"email":"ann@example.com","custom_fields":{"x":${nested(200)}}}`, key), /more than 100 levels deep$/);
  // The body, the answers, the answer, then 97 levels in its value: 100, the most there may be.
  const deepest = await response(nested(97));
  assert.equal(deepest.statusCode, 201, deepest.body);
});
