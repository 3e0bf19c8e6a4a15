// `repute import` as a real child process: every record type, bad lines rejected with their numbers and
// reasons while the rest goes in, the summary, what the API then shows, and re-import updating in place.
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { ndjson, tempFile } from './import-files.ts';
import { cliDatabaseUrl, cliEnv, repute } from './run.ts';

async function countEvents(t: TestApp, type: string): Promise<number> {
  return (await t.ctx.db.selectFrom('events').select('id').where('type', '=', type).execute()).length;
}

eachDatabase('repute import: every record type, bad lines rejected by number and reason, summary, data on the API', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other group' });
  const rule = await t.admin('POST', `/accounts/${tree.accountId}/alert-rules`, { node_id: tree.root, max_rating: 2 });
  assert.equal(rule.statusCode, 201, rule.body);
  const key = await createKey(t, tree.accountId, tree.root);
  const a = tree.accountId;
  const [p0, p1, p2] = tree.properties;
  const review = (externalId: string, body: object = {}) => ({
    type: 'review', account_id: a, node_id: p0, platform: 'google', external_id: externalId, reviewed_at: '2026-03-01T10:00:00Z', rating: 5, ...body,
  });
  const file = tempFile(ndjson([
    /* 1 */ review('g-1', { text: 'Lovely breakfast', language: 'en', sentiment: 'positive' }),
    /* 2 */ review('g-2', { node_id: p1, rating: 1, owner_reply: 'Sorry!', recommend: false, reviewed_at: '2026-03-02T10:00:00Z' }),
    /* 3 */ '{"type": "review", "account_id": ',
    /* 4 */ review('g-4', { rating: 9 }),
    /* 5 */ review('g-5', { node_id: other.properties[0] }),
    /* 6 */ '',
    /* 7 */ { type: 'topic', account_id: null, ref: 'food', name: 'Breakfast', language: 'en' },
    /* 8 */ { type: 'mention', account_id: a, review: { platform: 'google', external_id: 'g-1' }, canonical_label_ref: 'food', text: 'Lovely breakfast', source_field: 'text', sentiment: 'positive', confidence: 0.9 },
    /* 9 */ { type: 'survey', account_id: a, ref: 'stay', node_id: tree.root, name: 'Stay survey', definition: { pages: [] }, status: 'published' },
    /* 10 */ { type: 'response', account_id: a, survey_ref: 'stay', node_id: p0, channel: 'email', status: 'completed', overall_score: 9,
      answers: [{ question_id: 'nps', question_type: 'nps', value: 9, numeric_value: 9 }] },
    /* 11 */ { type: 'response', account_id: a, survey_ref: 'nope', node_id: p0, channel: 'email', status: 'completed' },
    /* 12 */ { type: 'recommendation', account_id: a, title: 'More coffee', body: 'Guests ask for it.', priority: 'high', canonical_label_ref: 'food' },
    /* 13 */ review('g-3', { node_id: p2, platform: 'booking', rating: 4.2, reviewed_at: '2026-03-03T10:00:00Z' }),
    /* 14 */ review('g-1', { rating: 4, text: 'Lovely breakfast, slow check-in' }),
    /* 15 */ { type: 'guest', account_id: a },
    /* 16 */ review('g-6', { account_id: '01234567-89ab-7def-8123-456789abcdef' }),
    /* 17 */ { type: 'mention', account_id: a, review: { platform: 'google', external_id: 'g-404' }, canonical_label_ref: 'food', text: 'x', source_field: 'text' },
  ]));
  try {
    const env = cliEnv(cliDatabaseUrl(t.testDb));
    const r = await repute(['import', file.path, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary, {
      lines: 16,
      created: { review: 3, survey: 1, response: 1, topic: 1, mention: 1, recommendation: 1 },
      updated: { review: 1, survey: 0, response: 0, topic: 0, mention: 0, recommendation: 0 },
      unchanged: { review: 0, survey: 0, response: 0, topic: 0, mention: 0, recommendation: 0 },
      rejected: { review: 3, survey: 0, response: 1, topic: 0, mention: 1, recommendation: 0, invalid: 2 },
      rejected_lines: [3, 4, 5, 11, 15, 16, 17],
    });
    // stderr: one line per rejection (a slow run may add "import: … lines read" progress lines).
    const reasons: Record<number, string> = Object.fromEntries(r.stderr.trim().split('\n').filter((l) => !l.startsWith('import: ')).map((l) => {
      const m = /^line (\d+): (.*)$/.exec(l);
      assert.ok(m, `unexpected stderr line: ${l}`);
      return [Number(m[1]), m[2]!];
    }));
    assert.deepEqual(Object.keys(reasons).map(Number), [3, 4, 5, 11, 15, 16, 17]);
    assert.match(reasons[3] ?? '', /not valid JSON/);
    assert.match(reasons[4] ?? '', /review\.rating must be <= 5/);
    assert.match(reasons[5] ?? '', /node_id must be a node of this account/);
    assert.match(reasons[11] ?? '', /survey_ref "nope"/);
    assert.match(reasons[15] ?? '', /type must be one of: review, survey, response, topic, mention, recommendation/);
    assert.match(reasons[16] ?? '', /account_id .* names no account/);
    assert.match(reasons[17] ?? '', /g-404.*not a review of this account/);

    const reviews = (await t.api(key, 'GET', '/reviews')).json().data;
    assert.deepEqual(reviews.map((x: any) => x.external_id), ['g-3', 'g-2', 'g-1']);
    const g1 = reviews.find((x: any) => x.external_id === 'g-1');
    assert.equal(g1.rating, 4); // line 14 updated line 1's review in place
    assert.equal(g1.text, 'Lovely breakfast, slow check-in');
    const g2 = reviews.find((x: any) => x.external_id === 'g-2');
    assert.equal(g2.owner_reply, 'Sorry!');
    assert.ok(g2.replied_at);

    const scores = (await t.api(key, 'GET', '/analytics/scores')).json();
    assert.equal(scores.total_reviews, 3);
    assert.equal(scores.overall_score, 3.1); // (4 + 1 + 4.2) / 3
    assert.equal(scores.recommend_rate, 0);
    assert.equal(scores.response_rate, 33.3);
    assert.equal(await countEvents(t, 'review.received'), 3);
    assert.equal(await countEvents(t, 'review.alert_triggered'), 1); // g-2, rating 1
    assert.equal(await countEvents(t, 'survey.response_completed'), 1);

    const mentions = (await t.api(key, 'GET', '/insights/mentions')).json().data;
    assert.equal(mentions.length, 1);
    assert.equal(mentions[0].review_id, g1.id);
    const topics = (await t.api(key, 'GET', '/insights/topics')).json().data;
    assert.equal(mentions[0].canonical_label_id, topics.find((x: any) => x.name === 'Breakfast').id);
    const recommendations = (await t.api(key, 'GET', '/insights/recommendations')).json().data;
    assert.deepEqual(recommendations.map((x: any) => [x.title, x.canonical_label_id]), [['More coffee', mentions[0].canonical_label_id]]);
    const surveys = (await t.api(key, 'GET', '/surveys')).json().data;
    assert.deepEqual(surveys.map((x: any) => x.name), ['Stay survey']);
    const responses = (await t.api(key, 'GET', `/surveys/${surveys[0].id}/responses`)).json().data;
    assert.deepEqual(responses.map((x: any) => [x.status, x.overall_score, x.node_id]), [['completed', 9, p0]]);
  } finally {
    file.remove();
  }
});

eachDatabase('re-importing reviews (from stdin) updates them in place: created 0, no second review.received', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const lines = (rating: number) => ndjson(tree.properties.map((node, i) => ({
    type: 'review', account_id: tree.accountId, node_id: node, platform: 'tripadvisor', external_id: `ta-${i}`,
    reviewed_at: `2026-04-0${i + 1}T08:00:00Z`, rating, recommend: rating >= 4,
  })));
  const env = cliEnv(cliDatabaseUrl(t.testDb));

  const first = await repute(['import', '-'], env, lines(5));
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /created: +3 \(review 3\)/);
  assert.match(first.stdout, /updated: +0\n/);
  assert.match(first.stdout, /rejected: +0\n/);
  const before = (await t.api(key, 'GET', '/reviews')).json().data;

  const second = await repute(['import', '-'], env, lines(2));
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /created: +0\n/);
  assert.match(second.stdout, /updated: +3 \(review 3\)/);
  const after = (await t.api(key, 'GET', '/reviews')).json().data;
  assert.deepEqual(after.map((x: any) => x.id), before.map((x: any) => x.id));
  assert.deepEqual(after.map((x: any) => x.rating), [2, 2, 2]);
  assert.equal(await countEvents(t, 'review.received'), 3);
  const scores = (await t.api(key, 'GET', '/analytics/scores')).json();
  assert.equal(scores.total_reviews, 3);
  assert.equal(scores.overall_score, 2);
  assert.equal(scores.recommend_rate, 0);
});

eachDatabase('repute import: human summary lists rejected lines; a missing file is fatal (exit 1, one line)', async (t) => {
  const tree = await createTree(t);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const good = { type: 'review', account_id: tree.accountId, node_id: tree.properties[0], platform: 'google', external_id: 'x', reviewed_at: '2026-05-01T00:00:00Z' };
  const r = await repute(['import', '-'], env, ndjson(['[]', good, '{"type":"review"}', 'null']));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^import finished: 4 records read\n/);
  assert.match(r.stdout, /rejected: +3 \(review 1, invalid 2\)\n {2}rejected lines: 1, 3, 4\n/);
  assert.match(r.stderr, /line 3: account_id must be a UUID/);

  const missing = await repute(['import', '/nonexistent/file.ndjson'], env);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr.trim().split('\n')[0], 'repute: cannot read /nonexistent/file.ndjson: ENOENT');
  assert.equal(missing.stdout, '');
});
