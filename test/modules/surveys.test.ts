// Surveys: the public reads (surveys, responses, answers), the operator's writes, the completion
// event (once per response), subtree scoping, auth, and that respondent data never leaves.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { ADMIN_TOKEN, type TestApp } from '../support/app.ts';

const SURVEY_FIELDS = ['created_at', 'description', 'id', 'name', 'node_id', 'primary_language', 'published_at', 'status'];
const DETAIL_FIELDS = [...SURVEY_FIELDS, 'published_definition'].sort();
const RESPONSE_FIELDS = ['channel', 'completed_at', 'created_at', 'id', 'node_id', 'overall_score', 'started_at', 'status', 'survey_id', 'updated_at'];
const ANSWER_FIELDS = ['answered_at', 'comment', 'id', 'numeric_value', 'question_id', 'question_path', 'question_type', 'value'];
const DEFINITION = { pages: [{ id: 'p1', questions: [{ id: 'nps', type: 'nps', text: { en: 'Would you recommend us?' } }] }] };
const UNKNOWN = '00000000-0000-7000-8000-000000000000';

async function created(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 201): Promise<any> {
  const r = await response;
  assert.equal(r.statusCode, status, r.body);
  return r.json();
}

const survey = (t: TestApp, accountId: string, body: Record<string, unknown>) =>
  created(t.admin('POST', `/accounts/${accountId}/surveys`, { name: 'Stay survey', definition: DEFINITION, status: 'published', ...body }));

const response = (t: TestApp, surveyId: string, body: Record<string, unknown>) =>
  created(t.admin('POST', `/surveys/${surveyId}/responses`, { channel: 'email', status: 'completed', ...body }));

const at = (day: number, minute = 0) => new Date(Date.UTC(2026, 2, day, 10, minute)).toISOString();

async function get(t: TestApp, key: string, path: string, status = 200): Promise<any> {
  const r = await t.api(key, 'GET', path);
  assert.equal(r.statusCode, status, `${path}: ${r.body}`);
  return r.json();
}

async function countEvents(t: TestApp, type: string): Promise<number> {
  const rows = await t.ctx.db.selectFrom('events').select('payload').where('type', '=', type).execute();
  return rows.length;
}

eachDatabase('GET /surveys lists published surveys owned in the subtree, newest first, paged', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const [north, south] = tree.regions;
  const [p1, , p3] = tree.properties;
  const s1 = await survey(t, tree.accountId, { node_id: north, created_at: at(1) });
  const s2 = await survey(t, tree.accountId, { node_id: p1, created_at: at(2) });
  const s3 = await survey(t, tree.accountId, { node_id: p1, created_at: at(2) }); // same time: the id breaks the tie
  const draft = await survey(t, tree.accountId, { node_id: p1, status: 'draft', created_at: at(4) });
  await survey(t, tree.accountId, { node_id: p3, created_at: at(5) }); // South
  await survey(t, tree.accountId, { node_id: tree.root, created_at: at(6) }); // above North
  await survey(t, other.accountId, { node_id: other.regions[0], created_at: at(7) });
  const key = await createKey(t, tree.accountId, north, ['surveys:read']);

  const page1 = await get(t, key, '/surveys?limit=2');
  assert.deepEqual(page1.data.map((s: any) => s.id), [s3.id, s2.id]);
  assert.equal(page1.has_more, true);
  assert.equal(typeof page1.next_cursor, 'string');
  assert.deepEqual(Object.keys(page1.data[0]).sort(), SURVEY_FIELDS);
  assert.deepEqual(page1.data[0], {
    id: s3.id, name: 'Stay survey', description: '', node_id: p1, status: 'published', primary_language: 'en',
    published_at: s3.published_at, created_at: at(2),
  });
  const page2 = await get(t, key, `/surveys?limit=2&cursor=${page1.next_cursor}`);
  assert.deepEqual(page2.data.map((s: any) => s.id), [s1.id]);
  assert.equal(page2.has_more, false);
  assert.equal(page2.next_cursor, null);

  // Publishing the draft makes it visible, at its creation time.
  const published = await created(t.admin('POST', `/surveys/${draft.id}/publish`), 200);
  assert.equal(published.status, 'published');
  assert.deepEqual(published.published_definition, DEFINITION);
  assert.deepEqual((await get(t, key, '/surveys')).data.map((s: any) => s.id), [draft.id, s3.id, s2.id, s1.id]);

  const southKey = await createKey(t, tree.accountId, south, ['surveys:read']);
  assert.equal((await get(t, southKey, '/surveys')).data.length, 1);
  const rootKey = await createKey(t, tree.accountId, tree.root, ['surveys:read']);
  assert.equal((await get(t, rootKey, '/surveys')).data.length, 6);
  for (const query of ['limit=0', 'limit=101', 'cursor=bad', 'extra=1']) {
    const r = await t.api(key, 'GET', `/surveys?${query}`);
    assert.equal(r.statusCode, 400, query);
    assert.match(r.json().error, /limit|cursor|extra/);
  }
});

eachDatabase('GET /surveys/{id} answers SurveyDetail; drafts, other accounts and other subtrees answer 404', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const [north] = tree.regions;
  const visible = await survey(t, tree.accountId, {
    node_id: tree.properties[0], description: 'After checkout', primary_language: 'de', published_at: at(3), created_at: at(2),
  });
  const draft = await survey(t, tree.accountId, { node_id: tree.properties[0], status: 'draft' });
  const south = await survey(t, tree.accountId, { node_id: tree.properties[2] });
  const foreign = await survey(t, other.accountId, { node_id: other.root });
  const key = await createKey(t, tree.accountId, north, ['surveys:read']);

  const detail = await get(t, key, `/surveys/${visible.id}`);
  assert.deepEqual(Object.keys(detail).sort(), DETAIL_FIELDS);
  assert.deepEqual(detail, {
    id: visible.id, name: 'Stay survey', description: 'After checkout', node_id: tree.properties[0], status: 'published',
    primary_language: 'de', published_at: at(3), created_at: at(2), published_definition: DEFINITION,
  });
  for (const id of [draft.id, south.id, foreign.id, UNKNOWN, 'not-a-uuid']) {
    const r = await t.api(key, 'GET', `/surveys/${id}`);
    assert.equal(r.statusCode, 404, id);
    assert.ok(r.json().error);
  }
  // The draft as the operator sees it: no published definition yet.
  assert.equal(draft.published_definition, null);
  assert.equal(draft.published_at, null);
});

eachDatabase('operator survey bodies are validated, naming the field; unknown ids answer 404', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const base = { node_id: tree.root, name: 'S', definition: {}, status: 'draft' };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...base, name: undefined }, /name/],
    [{ ...base, status: 'archived' }, /status/],
    [{ ...base, definition: 'x' }, /definition/],
    [{ ...base, colour: 'red' }, /colour/],
    [{ ...base, node_id: 'nope' }, /node_id/],
    [{ ...base, node_id: other.root }, /node_id/],
    [{ ...base, created_at: 'yesterday' }, /created_at/],
    [{ ...base, published_at: at(1) }, /published_at/],
  ];
  for (const [body, field] of cases) {
    const r = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, body);
    assert.equal(r.statusCode, 400, JSON.stringify(body));
    assert.match(r.json().error, field);
  }
  const nulls = await survey(t, tree.accountId, { ...base, description: null, primary_language: null, created_at: null });
  assert.equal(nulls.description, '');
  assert.equal(nulls.primary_language, 'en');
  for (const path of [`/accounts/${UNKNOWN}/surveys`, '/accounts/nope/surveys']) {
    assert.equal((await t.admin('POST', path, base)).statusCode, 404);
  }
  assert.equal((await t.admin('POST', `/surveys/${UNKNOWN}/publish`)).statusCode, 404);
  assert.equal((await t.admin('POST', '/surveys/nope/publish')).statusCode, 404);
});

eachDatabase('GET /surveys/{id}/responses pages the responses given in the subtree, newest first', async (t) => {
  const tree = await createTree(t);
  const [p1, p2, p3] = tree.properties;
  const s = await survey(t, tree.accountId, { node_id: tree.root });
  const mine = await survey(t, tree.accountId, { node_id: p1 });
  const r1 = await response(t, mine.id, { node_id: p1, started_at: at(1), completed_at: at(1, 5), overall_score: 9 });
  const r2 = await response(t, mine.id, { node_id: p1, status: 'started', started_at: at(2) });
  const r3 = await response(t, mine.id, { node_id: p1, started_at: at(2) }); // same time as r2, later id
  await response(t, s.id, { node_id: p1, started_at: at(3) }); // another survey
  const p1Key = await createKey(t, tree.accountId, p1, ['surveys:read']);

  const page1 = await get(t, p1Key, `/surveys/${mine.id}/responses?limit=2`);
  assert.deepEqual(page1.data.map((r: any) => r.id), [r3.id, r2.id]);
  assert.equal(page1.has_more, true);
  const page2 = await get(t, p1Key, `/surveys/${mine.id}/responses?limit=2&cursor=${page1.next_cursor}`);
  assert.deepEqual(page2.data.map((r: any) => r.id), [r1.id]);
  assert.deepEqual({ has_more: page2.has_more, next_cursor: page2.next_cursor }, { has_more: false, next_cursor: null });
  assert.deepEqual(Object.keys(page2.data[0]).sort(), RESPONSE_FIELDS);
  // updated_at: the change stamp of the response's last change (here its creation, completed).
  assert.ok(page2.data[0].updated_at >= page2.data[0].created_at);
  assert.deepEqual(page2.data[0], {
    id: r1.id, survey_id: mine.id, node_id: p1, status: 'completed', channel: 'email', overall_score: 9,
    started_at: at(1), completed_at: at(1, 5), created_at: at(1), updated_at: page2.data[0].updated_at,
  });
  assert.equal(page1.data[1].completed_at, null);
  assert.equal(page1.data[1].overall_score, null);

  // A survey owned by the root, answered at every property: a North key cannot see the survey itself
  // (its owner is above the key's node); the root key sees every response, a region key none.
  const a1 = await response(t, s.id, { node_id: p2, started_at: at(4) });
  const a3 = await response(t, s.id, { node_id: p3, started_at: at(5) });
  const rootKey = await createKey(t, tree.accountId, tree.root, ['surveys:read']);
  const all = await get(t, rootKey, `/surveys/${s.id}/responses`);
  assert.deepEqual(all.data.map((r: any) => r.id).slice(0, 2), [a3.id, a1.id]);
  assert.equal(all.data.length, 3);
  const northKey = await createKey(t, tree.accountId, tree.regions[0], ['surveys:read']);
  await get(t, northKey, `/surveys/${s.id}/responses`, 404);

  // A region-owned survey answered in both of its properties and (oddly) in the other region: a
  // property key sees only its own property's responses.
  const regional = await survey(t, tree.accountId, { node_id: tree.regions[0] });
  const in1 = await response(t, regional.id, { node_id: p1, started_at: at(6) });
  const in2 = await response(t, regional.id, { node_id: p2, started_at: at(7) });
  await response(t, regional.id, { node_id: p3, started_at: at(8) });
  assert.deepEqual((await get(t, northKey, `/surveys/${regional.id}/responses`)).data.map((r: any) => r.id), [in2.id, in1.id]);
  const p1Regional = await get(t, p1Key, `/surveys/${regional.id}/responses`, 404);
  assert.ok(p1Regional.error);
  const p2Survey = await survey(t, tree.accountId, { node_id: p2 });
  await response(t, p2Survey.id, { node_id: p2 });
  await get(t, p1Key, `/surveys/${p2Survey.id}/responses`, 404);

  for (const id of [UNKNOWN, 'not-a-uuid']) await get(t, rootKey, `/surveys/${id}/responses`, 404);
  const draft = await survey(t, tree.accountId, { node_id: p1, status: 'draft' });
  await response(t, draft.id, { node_id: p1 });
  await get(t, p1Key, `/surveys/${draft.id}/responses`, 404);
  await get(t, p1Key, `/surveys/${mine.id}/responses?cursor=nope`, 400);
});

eachDatabase('answers keep any JSON value, come in answer order, and only through their own visible survey', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const [p1, , p3] = tree.properties;
  const s = await survey(t, tree.accountId, { node_id: tree.regions[0] });
  const values: unknown[] = [{ choice: ['a', 'b'], other: null }, [1, 2, 3], 'free text', 7.5, true, null, 0];
  const answers = values.map((value, i) => ({
    question_id: `q${i}`, question_path: `p1/q${i}`, question_type: 'mixed', value,
    // Given out of order on purpose: the list follows answered_at.
    answered_at: at(1, 10 - i), ...(i === 3 ? { numeric_value: 7.5, comment: 'fine' } : {}),
  }));
  const r = await response(t, s.id, { node_id: p1, answers });
  assert.equal(r.answer_ids.length, values.length);
  const key = await createKey(t, tree.accountId, tree.regions[0], ['surveys:read']);

  const list = await get(t, key, `/surveys/${s.id}/responses/${r.id}/answers`);
  assert.deepEqual(Object.keys(list), ['data']);
  assert.deepEqual(list.data.map((a: any) => a.value), [...values].reverse());
  assert.deepEqual(Object.keys(list.data[0]).sort(), ANSWER_FIELDS);
  assert.deepEqual(list.data.find((a: any) => a.question_id === 'q3'), {
    id: r.answer_ids[3], question_id: 'q3', question_path: 'p1/q3', question_type: 'mixed', value: 7.5,
    numeric_value: 7.5, comment: 'fine', answered_at: at(1, 7),
  });
  assert.equal(list.data[0].numeric_value, null);
  assert.equal(list.data[0].comment, null);

  // Answers sharing a timestamp come in id (creation) order; question_path defaults to question_id.
  const tied = await response(t, s.id, {
    node_id: p1, answers: ['x', 'y', 'z'].map((q) => ({ question_id: q, question_type: 'text', value: q, answered_at: at(2) })),
  });
  const tiedList = await get(t, key, `/surveys/${s.id}/responses/${tied.id}/answers`);
  assert.deepEqual(tiedList.data.map((a: any) => a.id), tied.answer_ids);
  assert.deepEqual(tiedList.data.map((a: any) => a.question_path), ['x', 'y', 'z']);

  const elsewhere = await response(t, s.id, { node_id: p3 });
  const s2 = await survey(t, tree.accountId, { node_id: p1 });
  const r2 = await response(t, s2.id, { node_id: p1 });
  const foreignSurvey = await survey(t, other.accountId, { node_id: other.root });
  const foreign = await response(t, foreignSurvey.id, { node_id: other.root });
  for (const [surveyId, responseId] of [
    [s.id, elsewhere.id], // the response lies outside the key's subtree
    [s.id, r2.id], // the response belongs to another survey
    [s2.id, r.id],
    [foreignSurvey.id, foreign.id],
    [s.id, foreign.id],
    [s.id, UNKNOWN],
    [s.id, 'nope'],
    ['nope', r.id],
  ]) {
    await get(t, key, `/surveys/${surveyId}/responses/${responseId}/answers`, 404);
  }
});

eachDatabase('operator response bodies are validated, naming the field', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const s = await survey(t, tree.accountId, { node_id: tree.root });
  const base = { node_id: tree.properties[0], channel: 'email', status: 'started' };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...base, channel: undefined }, /channel/],
    [{ ...base, status: 'abandoned' }, /status/],
    [{ ...base, node_id: other.properties[0] }, /node_id/],
    [{ ...base, completed_at: at(1) }, /completed_at/],
    [{ ...base, context: 'not an object' }, /context/],
    [{ ...base, overall_score: '9' }, /overall_score/],
    [{ ...base, answers: [{ question_id: 'q', question_type: 't' }] }, /value/],
    [{ ...base, answers: [{ question_id: 'q', question_type: 't', value: 1, mood: 'x' }] }, /mood/],
    [{ ...base, email: 'a@b.c' }, /email/],
  ];
  for (const [body, field] of cases) {
    const r = await t.admin('POST', `/surveys/${s.id}/responses`, body);
    assert.equal(r.statusCode, 400, JSON.stringify(body));
    assert.match(r.json().error, field);
  }
  assert.equal((await t.admin('POST', `/surveys/${UNKNOWN}/responses`, base)).statusCode, 404);
  assert.equal((await t.admin('POST', '/responses/nope/complete', {})).statusCode, 404);
  assert.equal((await t.admin('POST', `/responses/${UNKNOWN}/complete`)).statusCode, 404);
  const started = await response(t, s.id, { ...base, overall_score: null, started_at: null, answers: null });
  const bad = await t.admin('POST', `/responses/${started.id}/complete`, { completed_at: 'soon' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error, /completed_at/);
  // The body may be left out, also by a client that sends the JSON header on every request.
  const empty = await t.app.inject({ method: 'POST', url: `/admin/v1/responses/${started.id}/complete`, payload: '', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } });
  assert.equal(empty.statusCode, 200, empty.body);
  assert.equal(empty.json().status, 'completed');
});

eachDatabase('survey.response_completed is emitted once per response, with the public response', async (t) => {
  const tree = await createTree(t);
  const s = await survey(t, tree.accountId, { node_id: tree.root });
  const p1 = tree.properties[0];

  const done = await response(t, s.id, { node_id: p1, started_at: at(1), completed_at: at(1, 9), overall_score: 8 });
  assert.equal(await countEvents(t, 'survey.response_completed'), 1);
  const [event] = await t.ctx.db.selectFrom('events').select(['payload', 'account_id']).where('type', '=', 'survey.response_completed').execute();
  const body = JSON.parse(event!.payload);
  assert.equal(body.account_id, tree.accountId);
  assert.match(body.data.response.updated_at, /^\d{4}-\d{2}-\d{2}T/);
  assert.deepEqual(body.data, {
    response: {
      id: done.id, survey_id: s.id, node_id: p1, status: 'completed', channel: 'email', overall_score: 8,
      started_at: at(1), completed_at: at(1, 9), created_at: at(1), updated_at: body.data.response.updated_at,
    },
  });

  // Completing an already completed response changes nothing and emits nothing.
  const again = await created(t.admin('POST', `/responses/${done.id}/complete`, { completed_at: at(5) }), 200);
  assert.equal(again.completed_at, at(1, 9));
  assert.equal(await countEvents(t, 'survey.response_completed'), 1);

  // A started response emits nothing until completed, then once, however often it is completed.
  const started = await response(t, s.id, { node_id: p1, status: 'started', started_at: at(2) });
  assert.equal(await countEvents(t, 'survey.response_completed'), 1);
  const completed = await created(t.admin('POST', `/responses/${started.id}/complete`, { completed_at: at(2, 30) }), 200);
  assert.deepEqual(Object.keys(completed).sort(), RESPONSE_FIELDS);
  assert.equal(completed.status, 'completed');
  assert.equal(completed.completed_at, at(2, 30));
  assert.equal(await countEvents(t, 'survey.response_completed'), 2);
  // The answer is the response as stored now: its new change stamp, as a later read and the event give it.
  assert.notEqual(completed.updated_at, started.updated_at);
  const read = (await t.api(await createKey(t, tree.accountId, tree.root, ['surveys:read']), 'GET', `/surveys/${s.id}/responses?limit=100`)).json().data.find((r: any) => r.id === started.id);
  assert.equal(completed.updated_at, read.updated_at);
  const concurrently = await Promise.all([1, 2, 3].map(() => t.admin('POST', `/responses/${started.id}/complete`)));
  assert.deepEqual(concurrently.map((r) => r.statusCode), [200, 200, 200]);
  assert.equal(await countEvents(t, 'survey.response_completed'), 2);

  // Without a body it completes now.
  const later = await response(t, s.id, { node_id: p1, status: 'started' });
  const before = Date.now();
  const now = await created(t.admin('POST', `/responses/${later.id}/complete`), 200);
  assert.ok(Date.parse(now.completed_at) >= before - 1000);
  assert.equal(await countEvents(t, 'survey.response_completed'), 3);
  // Racing completions of a fresh response still emit exactly one event.
  const raced = await response(t, s.id, { node_id: p1, status: 'started' });
  await Promise.all([1, 2, 3, 4].map(() => t.admin('POST', `/responses/${raced.id}/complete`)));
  assert.equal(await countEvents(t, 'survey.response_completed'), 4);
});

eachDatabase('respondent e-mail, context and token are stored but appear in no answer and no event', async (t) => {
  const tree = await createTree(t);
  const s = await survey(t, tree.accountId, { node_id: tree.root });
  const secrets = { respondent_email: 'pii-guest@example.org', context: { room: 'pii-room-4711' }, token: 'pii-token-9f3a' };
  const bodies: string[] = [];
  const record = async (p: Promise<{ statusCode: number; body: string }>) => {
    const r = await p;
    assert.ok(r.statusCode < 300, r.body);
    bodies.push(r.body);
    return JSON.parse(r.body);
  };
  const done = await record(t.admin('POST', `/surveys/${s.id}/responses`, {
    node_id: tree.properties[0], channel: 'email', status: 'completed', ...secrets,
    answers: [{ question_id: 'q', question_type: 'text', value: 'lovely' }],
  }));
  const started = await record(t.admin('POST', `/surveys/${s.id}/responses`, { node_id: tree.properties[0], channel: 'sms', status: 'started', ...secrets }));
  await record(t.admin('POST', `/responses/${started.id}/complete`, {}));
  await record(t.admin('POST', `/responses/${done.id}/complete`, {}));
  await record(t.admin('POST', `/surveys/${s.id}/publish`));

  const stored = await t.ctx.db.selectFrom('survey_responses').select(['respondent_email', 'context', 'token']).where('id', '=', done.id).executeTakeFirstOrThrow();
  assert.deepEqual({ ...stored, context: JSON.parse(stored.context!) }, secrets);

  const key = await createKey(t, tree.accountId, tree.root, ['surveys:read']);
  for (const path of ['/surveys', `/surveys/${s.id}`, `/surveys/${s.id}/responses`,
    `/surveys/${s.id}/responses/${done.id}/answers`, `/surveys/${s.id}/responses/${started.id}/answers`]) {
    await record(t.api(key, 'GET', path));
  }
  for (const row of await t.ctx.db.selectFrom('events').select('payload').execute()) bodies.push(row.payload);
  assert.ok(bodies.length >= 10);
  for (const text of bodies) {
    for (const secret of ['pii-guest@example.org', 'pii-room-4711', 'pii-token-9f3a', 'respondent_email', 'token"']) {
      assert.ok(!text.includes(secret), `${secret} leaked in ${text}`);
    }
  }
});

eachDatabase('survey routes: no key 401; missing scope, plan without surveys 403', async (t) => {
  const tree = await createTree(t);
  const s = await survey(t, tree.accountId, { node_id: tree.root });
  const r = await response(t, s.id, { node_id: tree.root });
  const paths = ['/surveys', `/surveys/${s.id}`, `/surveys/${s.id}/responses`, `/surveys/${s.id}/responses/${r.id}/answers`];
  const noScope = await createKey(t, tree.accountId, tree.root, ['reviews:read', 'analytics:read', 'insights:read']);
  const limited = await createTree(t, { plan_features: ['reviews', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'] });
  const planKey = await createKey(t, limited.accountId, limited.root, ['surveys:read']);
  for (const path of paths) {
    assert.equal((await t.api(null, 'GET', path)).statusCode, 401, path);
    const scope = await t.api(noScope, 'GET', path);
    assert.equal(scope.statusCode, 403, path);
    assert.match(scope.json().error, /surveys:read/);
    const plan = await t.api(planKey, 'GET', path);
    assert.equal(plan.statusCode, 403, path);
    assert.match(plan.json().error, /plan/);
  }
});

eachDatabase('a survey definition is checked on create and on publish, naming the path of the fault', async (t) => {
  const tree = await createTree(t);
  const page = (questions: unknown[]) => ({ pages: [{ id: 'p1', title: { en: 'Stay' }, questions }] });
  const nps = { id: 'nps', type: 'nps', text: { en: 'Recommend us?' } };
  const cases: [unknown, RegExp][] = [
    [{ pages: 'all' }, /^body\.definition\.pages must be an array/],
    [page([{ ...nps, type: 'slider' }]), /^body\.definition\.pages\.0\.questions\.0\.type must be one of nps, rating, text, choice, yes_no/],
    [page([{ ...nps, text: 'Recommend us?' }]), /^body\.definition\.pages\.0\.questions\.0\.text must be an object of texts by language/],
    [page([nps, { ...nps }]), /^body\.definition\.pages\.0\.questions\.1\.id "nps" is used by another question/],
    [page([{ id: 'r', type: 'rating', scale: 7, text: { en: 'Rate' } }]), /^body\.definition\.pages\.0\.questions\.0\.scale must be 5 or 10/],
    [page([{ id: 'c', type: 'choice', options: ['a', 'b'], text: { en: 'Pick' } }]), /^body\.definition\.pages\.0\.questions\.0\.options\.0 must be an object/],
    [page([{ id: 'c', type: 'choice', options: [], text: { en: 'Pick' } }]), /options must be an array of 1 to 100/],
    [page([{ ...nps, required: 'yes' }]), /questions\.0\.required must be a boolean/],
    [page([{ ...nps, text: { english: 'x' } }]), /questions\.0\.text\.english is not a language code/],
    [{ pages: [{ id: 'p1', questions: [nps] }, { id: 'p1', questions: [] }] }, /^body\.definition\.pages\.1\.id "p1" is used by another page/],
  ];
  for (const [definition, fault] of cases) {
    const r = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'S', status: 'draft', definition });
    assert.equal(r.statusCode, 400, JSON.stringify(definition));
    assert.match(r.json().error, fault);
  }
  const valid = page([nps, { id: 'r', type: 'rating', scale: 10, text: { en: 'Rate', de: 'Bewerten' }, required: true },
    { id: 'c', type: 'choice', multiple: true, options: [{ id: 'a', text: { en: 'A' } }], text: { en: 'Pick' } },
    { id: 'y', type: 'yes_no', text: { en: 'Again?' } }, { id: 't', type: 'text', text: { en: 'Anything else?' } }]);
  const draft = await survey(t, tree.accountId, { node_id: tree.root, name: 'S', status: 'draft', definition: valid });
  const published = await t.admin('POST', `/surveys/${draft.id}/publish`);
  assert.equal(published.statusCode, 200, published.body);
  assert.deepEqual(published.json().published_definition, valid);
});

eachDatabase('an imported response without overall_score gets the one the survey page would give it; one given is kept', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const definition = { pages: [{ id: 'stay', questions: [
    { id: 'nps', type: 'nps', text: { en: 'Would you recommend us?' } }, { id: 'room', type: 'rating', scale: 5, text: { en: 'Your room' } },
  ] }] };
  const s = await survey(t, tree.accountId, { node_id: tree.root, definition });
  const answer = (question_id: string, question_type: string, numeric_value: number) => ({ question_id, question_path: `stay/${question_id}`, question_type, value: numeric_value, numeric_value });
  const withNps = await response(t, s.id, { node_id: tree.properties[0], answers: [answer('nps', 'nps', 9), answer('room', 'rating', 2)] });
  const ratingsOnly = await response(t, s.id, { node_id: tree.properties[0], answers: [answer('room', 'rating', 4)] });
  const given = await response(t, s.id, { node_id: tree.properties[0], overall_score: 3, answers: [answer('nps', 'nps', 9)] });
  // A rating whose question the survey lacks has no scale: it counts for nothing.
  const unknown = await response(t, s.id, { node_id: tree.properties[0], answers: [answer('elsewhere', 'rating', 4)] });
  const scores = new Map(((await get(t, key, `/surveys/${s.id}/responses?limit=10`)).data as any[]).map((r) => [r.id, r.overall_score]));
  assert.deepEqual([withNps.id, ratingsOnly.id, given.id, unknown.id].map((id) => scores.get(id)), [9, 7.5, 3, null]);
  // A survey stored with a definition of no pages at all ({}, which the admin API takes): the NPS answer still scores, a rating cannot.
  const bare = await survey(t, tree.accountId, { node_id: tree.root, definition: {} });
  const bareNps = await response(t, bare.id, { node_id: tree.properties[0], answers: [answer('nps', 'nps', 6)] });
  const bareRating = await response(t, bare.id, { node_id: tree.properties[0], answers: [answer('room', 'rating', 4)] });
  const bareScores = new Map(((await get(t, key, `/surveys/${bare.id}/responses?limit=10`)).data as any[]).map((r) => [r.id, r.overall_score]));
  assert.deepEqual([bareScores.get(bareNps.id), bareScores.get(bareRating.id)], [6, null]);
});
