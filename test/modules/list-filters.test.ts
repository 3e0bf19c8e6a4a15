// Filters beyond reviews: GET /insights/mentions (topic, sentiment, node, time), GET
// /surveys/{id}/responses (status, time, and sort=updated_at with updated_since for sync) and GET
// /analytics/scores (node, platform, time): each filter's effect across pages, the cursor bound to
// its filters, a node out of reach, and faults naming the parameter.
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { DEFINITION } from '../support/surveys.ts';
import { until } from '../webhooks/helpers.ts';

/** Every page of a listing, following next_cursor; the rows in order. */
async function readAll(t: TestApp, key: string, path: string, limit = 3): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await t.api(key, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.statusCode, 200, `${path}: ${r.body}`);
    const page = r.json();
    rows.push(...page.data);
    cursor = page.next_cursor;
    if (!cursor) return rows;
  }
  throw new Error('paging did not end');
}

const day = (d: number) => new Date(Date.UTC(2026, 4, d)).toISOString();

eachDatabase('GET /insights/mentions: topic, sentiment, node and time filters, across pages; the cursor is bound to them', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['insights:read']);
  const topics = (await t.api(key, 'GET', '/insights/topics')).json().data.slice(0, 2).map((x: any) => x.id);
  const sentiments = ['positive', 'negative', 'neutral'];
  for (let i = 0; i < 12; i++) {
    const review = await createReview(t, tree.accountId, tree.properties[i % 3]!, { text: `Review ${i}` });
    const r = await t.admin('POST', `/reviews/${review.id}/mentions`, {
      canonical_label_id: topics[i % 2], text: `mention ${i}`, source_field: 'text', sentiment: sentiments[i % 3], created_at: day(1 + i),
    });
    assert.equal(r.statusCode, 201, r.body);
  }
  const all = await readAll(t, key, '/insights/mentions');
  const cases: [string, (m: any, node: string) => boolean][] = [
    [`topic_id=${topics[0]}`, (m) => m.canonical_label_id === topics[0]],
    ['sentiment=negative', (m) => m.sentiment === 'negative'],
    [`topic_id=${topics[1]}&sentiment=positive`, (m) => m.canonical_label_id === topics[1] && m.sentiment === 'positive'],
    ['from=2026-05-03T00:00:00Z&to=2026-05-07T00:00:00Z', (m) => m.created_at >= day(3) && m.created_at < day(7)],
  ];
  for (const [query, rule] of cases) {
    const got = (await readAll(t, key, `/insights/mentions?${query}`)).map((m) => m.id);
    const want = all.filter((m) => rule(m, '')).map((m) => m.id);
    assert.ok(want.length > 0, query);
    assert.deepEqual(got, want, query);
  }
  // node_id: mentions of reviews at that node (the review's node is the mention's).
  const north = await readAll(t, key, `/insights/mentions?node_id=${tree.regions[0]}`);
  assert.equal(north.length, 8);
  const regional = await createKey(t, tree.accountId, tree.regions[0], ['insights:read']);
  assert.equal((await t.api(regional, 'GET', `/insights/mentions?node_id=${tree.properties[2]}`)).statusCode, 404);
  const first = (await t.api(key, 'GET', `/insights/mentions?limit=2&sentiment=neutral`)).json();
  const other = await t.api(key, 'GET', `/insights/mentions?limit=2&sentiment=positive&cursor=${first.next_cursor}`);
  assert.equal(other.statusCode, 400);
  assert.equal(other.json().code, 'cursor_invalid');
  for (const [query, rule] of [['sentiment=angry', /sentiment/], ['topic_id=nope', /topic_id/], ['from=2026-05-09T00:00:00Z&to=2026-05-02T00:00:00Z', /from must be before to/]] as const) {
    const r = await t.api(key, 'GET', `/insights/mentions?${query}`);
    assert.equal(r.statusCode, 400, query);
    assert.match(r.json().error, rule);
  }
});

eachDatabase('GET /surveys/{id}/responses: status and time filters; sort=updated_at&updated_since returns every completion once, oldest change first', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['surveys:read']);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'S', definition: DEFINITION, status: 'published' })).json();
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const r = await t.admin('POST', `/surveys/${survey.id}/responses`, {
      node_id: tree.properties[i % 3], channel: 'email', status: i % 2 ? 'completed' : 'started', started_at: day(1 + i),
    });
    assert.equal(r.statusCode, 201, r.body);
    ids.push(r.json().id);
  }
  const path = `/surveys/${survey.id}/responses`;
  const all = await readAll(t, key, path);
  assert.equal(all.length, 8);
  assert.ok(all.every((r) => typeof r.updated_at === 'string'));
  assert.deepEqual((await readAll(t, key, `${path}?status=completed`)).map((r) => r.id), all.filter((r) => r.status === 'completed').map((r) => r.id));
  assert.deepEqual((await readAll(t, key, `${path}?from=2026-05-03T00:00:00Z&to=2026-05-06T00:00:00Z`)).map((r) => r.id),
    all.filter((r) => r.created_at >= day(3) && r.created_at < day(6)).map((r) => r.id));

  // Sync: read everything oldest change first, remember the last stamp, complete two, read again from it.
  // On PostgreSQL a sync page stops a second under the oldest transaction open anywhere in the
  // database (db/change-stamp.ts): changes become readable about a second after they commit, later
  // while another test file holds a transaction open. So the reads wait until the changes show.
  const syncRead = (query: string, complete: (rows: Awaited<ReturnType<typeof readAll>>) => boolean) =>
    until(async () => {
      const rows = await readAll(t, key, query);
      return complete(rows) ? rows : null;
    }, 15_000, `sync to reach ${query}`);
  const synced = await syncRead(`${path}?sort=updated_at`, (rows) => rows.length === ids.length);
  assert.deepEqual(synced.map((r) => r.updated_at), [...synced.map((r) => r.updated_at)].sort());
  assert.deepEqual(new Set(synced.map((r) => r.id)), new Set(ids));
  const mark = synced.at(-1)!.updated_at;
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (const id of [ids[0], ids[2]]) assert.equal((await t.admin('POST', `/responses/${id}/complete`)).statusCode, 200);
  const changed = await syncRead(`${path}?sort=updated_at&updated_since=${encodeURIComponent(mark)}`,
    (rows) => rows.filter((r) => r.updated_at > mark).length >= 2);
  const fresh = changed.filter((r) => r.updated_at > mark).map((r) => r.id);
  assert.deepEqual(fresh.sort(), [ids[0], ids[2]].sort());
  assert.ok(changed.every((r) => r.updated_at >= mark));
  const bad = await t.api(key, 'GET', `${path}?updated_since=${encodeURIComponent(mark)}`);
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error, /updated_since needs sort=updated_at/);
  const first = (await t.api(key, 'GET', `${path}?limit=2`)).json();
  assert.equal((await t.api(key, 'GET', `${path}?limit=2&status=started&cursor=${first.next_cursor}`)).json().code, 'cursor_invalid');
});

eachDatabase('GET /analytics/scores: a node of the subtree, some platforms, a time range; out of reach is 404', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['analytics:read']);
  const reviews: [string, string, number, number, boolean][] = [
    [tree.properties[0], 'google', 5, 1, true], [tree.properties[0], 'booking', 3, 2, false], [tree.properties[1], 'google', 4, 3, true],
    [tree.properties[2], 'google', 1, 4, false], [tree.properties[2], 'booking', 2, 10, true],
  ];
  for (const [node, platform, rating, d, replied] of reviews) {
    await createReview(t, tree.accountId, node, { platform, rating, reviewed_at: day(d), ...(replied ? { owner_reply: 'Thanks' } : {}) });
  }
  const get = async (query: string) => {
    const r = await t.api(key, 'GET', `/analytics/scores${query}`);
    assert.equal(r.statusCode, 200, `${query}: ${r.body}`);
    return r.json();
  };
  const whole = await get('');
  assert.deepEqual([whole.total_reviews, whole.overall_score], [5, 3]);
  const north = await get(`?node_id=${tree.regions[0]}`);
  assert.deepEqual([north.node_id, north.total_reviews, north.overall_score], [tree.regions[0], 3, 4]);
  const google = await get('?platform=google');
  assert.deepEqual([google.total_reviews, google.overall_score, google.platform_scores.map((p: any) => p.platform)], [3, 3.3, ['google']]);
  const early = await get('?from=2026-05-01T00:00:00Z&to=2026-05-04T00:00:00Z');
  assert.deepEqual([early.total_reviews, early.overall_score, early.response_rate], [3, 4, 66.7]);
  const mixed = await get(`?node_id=${tree.properties[2]}&platform=booking&from=2026-05-05T00:00:00Z`);
  assert.deepEqual([mixed.total_reviews, mixed.overall_score, mixed.response_rate], [1, 2, 100]);
  // A range with no review: zeros and nulls, as for an empty subtree.
  const none = await get('?from=2027-01-01T00:00:00Z');
  assert.deepEqual([none.total_reviews, none.overall_score, none.platform_scores], [0, null, []]);
  const regional = await createKey(t, tree.accountId, tree.regions[0], ['analytics:read']);
  assert.equal((await t.api(regional, 'GET', `/analytics/scores?node_id=${tree.properties[2]}`)).statusCode, 404);
  for (const [query, rule] of [['?node_id=nope', /node_id/], ['?from=yesterday', /from/], ['?limit=5', /limit/]] as const) {
    const r = await t.api(key, 'GET', `/analytics/scores${query}`);
    assert.equal(r.statusCode, 400, query);
    assert.match(r.json().error, rule);
  }
});
