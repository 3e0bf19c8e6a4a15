// Insights: recommendations (account-wide), mentions (subtree, hidden flag mirrored from the review),
// topics (global plus the account's own), the operator's creates, scoping and auth.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import type { TestApp } from '../support/app.ts';

const RECOMMENDATION_FIELDS = ['body', 'canonical_label_id', 'created_at', 'id', 'impact', 'priority', 'title'];
const MENTION_FIELDS = [
  'canonical_label_id', 'confidence', 'created_at', 'custom_category_id', 'id', 'is_hidden', 'review_id', 'sentiment', 'source_field', 'text',
];
const TOPIC_FIELDS = ['id', 'language', 'name', 'parent_label_id'];
const UNKNOWN = '00000000-0000-7000-8000-000000000000';

async function created(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 201): Promise<any> {
  const r = await response;
  assert.equal(r.statusCode, status, r.body);
  return r.json();
}

async function get(t: TestApp, key: string, path: string, status = 200): Promise<any> {
  const r = await t.api(key, 'GET', path);
  assert.equal(r.statusCode, status, `${path}: ${r.body}`);
  return r.json();
}

const topic = (t: TestApp, accountId: string | null, body: Record<string, unknown>) =>
  created(t.admin('POST', accountId === null ? '/topics' : `/accounts/${accountId}/topics`, body));

const mention = (t: TestApp, reviewId: string, body: Record<string, unknown>) =>
  created(t.admin('POST', `/reviews/${reviewId}/mentions`, { text: 'the breakfast', source_field: 'text', ...body }));

const recommendation = (t: TestApp, accountId: string, body: Record<string, unknown>) =>
  created(t.admin('POST', `/accounts/${accountId}/recommendations`, { title: 'Fix breakfast', body: 'Guests mention cold eggs.', priority: 'high', ...body }));

const at = (day: number) => new Date(Date.UTC(2026, 3, day, 8)).toISOString();

/** Follows next_cursor until has_more is false; answers every id in order and the page count. */
async function allPages(t: TestApp, key: string, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await get(t, key, `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(page.has_more, typeof page.next_cursor === 'string');
    assert.ok(page.data.length <= limit);
    ids.push(...page.data.map((x: any) => x.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor);
  return { ids, pages };
}

eachDatabase('GET /insights/topics lists global topics and the account\'s own, by name then id', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const service = await topic(t, null, { name: 'Service', language: 'en' });
  const food = await topic(t, null, { name: 'Food' });
  const breakfast = await topic(t, tree.accountId, { name: 'Breakfast', language: 'en', parent_label_id: food.id });
  const spa1 = await topic(t, tree.accountId, { name: 'Spa', parent_label_id: null, language: null });
  const spa2 = await topic(t, tree.accountId, { name: 'Spa' }); // same name: the id breaks the tie
  const theirs = await topic(t, other.accountId, { name: 'Aardvark' });
  const key = await createKey(t, tree.accountId, tree.properties[0], ['insights:read']);

  const list = await get(t, key, '/insights/topics');
  assert.deepEqual(Object.keys(list), ['data']);
  // Beside the 14 canonical topics every database has (the insights engine's, global).
  const made = new Set([breakfast.id, food.id, service.id, spa1.id, spa2.id, theirs.id]);
  const canonical = list.data.filter((x: any) => !made.has(x.id));
  assert.equal(canonical.length, 14);
  const names = list.data.map((x: any) => x.name);
  assert.deepEqual(names, [...names].sort((a: string, b: string) => (Buffer.from(a) < Buffer.from(b) ? -1 : Buffer.from(a) > Buffer.from(b) ? 1 : 0)));
  const ours = list.data.filter((x: any) => made.has(x.id));
  assert.deepEqual(ours.map((x: any) => x.id), [breakfast.id, food.id, service.id, spa1.id, spa2.id]);
  assert.deepEqual(Object.keys(ours[0]).sort(), TOPIC_FIELDS);
  assert.deepEqual(ours[0], { id: breakfast.id, name: 'Breakfast', language: 'en', parent_label_id: food.id });
  assert.deepEqual(ours[1], { id: food.id, name: 'Food', language: null, parent_label_id: null });
  assert.deepEqual(breakfast, ours[0]);

  const otherKey = await createKey(t, other.accountId, other.root, ['insights:read']);
  assert.deepEqual((await get(t, otherKey, '/insights/topics')).data.filter((x: any) => made.has(x.id)).map((x: any) => x.id), [theirs.id, food.id, service.id]);
});

eachDatabase('operator topic bodies: parent must be readable by the account; fields are validated', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const global = await topic(t, null, { name: 'Rooms' });
  const own = await topic(t, tree.accountId, { name: 'Beds' });
  const theirs = await topic(t, other.accountId, { name: 'Pool' });

  await topic(t, tree.accountId, { name: 'Pillows', parent_label_id: own.id });
  await topic(t, tree.accountId, { name: 'Noise', parent_label_id: global.id });
  await topic(t, null, { name: 'Quiet rooms', parent_label_id: global.id });
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [`/accounts/${tree.accountId}/topics`, { name: 'X', parent_label_id: theirs.id }, /parent_label_id/],
    [`/accounts/${tree.accountId}/topics`, { name: 'X', parent_label_id: UNKNOWN }, /parent_label_id/],
    ['/topics', { name: 'X', parent_label_id: own.id }, /parent_label_id/],
    ['/topics', { name: 'X', parent_label_id: 'nope' }, /parent_label_id/],
    ['/topics', { language: 'en' }, /name/],
    ['/topics', { name: '' }, /name/],
    ['/topics', { name: 'X', colour: 'blue' }, /colour/],
    ['/topics', { name: 'X', language: 7 }, /language/],
  ];
  for (const [path, body, field] of cases) {
    const r = await t.admin('POST', path, body);
    assert.equal(r.statusCode, 400, `${path} ${JSON.stringify(body)}: ${r.body}`);
    assert.match(r.json().error, field);
  }
  assert.equal((await t.admin('POST', `/accounts/${UNKNOWN}/topics`, { name: 'X' })).statusCode, 404);
  assert.equal((await t.admin('POST', '/accounts/nope/topics', { name: 'X' })).statusCode, 404);
});

eachDatabase('GET /insights/recommendations pages the whole account newest first, whatever the key\'s node', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const food = await topic(t, null, { name: 'Food' });
  const made = [];
  for (let i = 0; i < 5; i++) {
    // Two share each day: the id breaks the tie.
    made.push(await recommendation(t, tree.accountId, { created_at: at(1 + Math.floor(i / 2)), title: `R${i}` }));
  }
  const full = await recommendation(t, tree.accountId, {
    title: 'Train staff', body: 'Check-in waits are long.', priority: 'medium', impact: 'high', canonical_label_id: food.id, created_at: at(9),
  });
  await recommendation(t, other.accountId, { created_at: at(10) });
  // A key bound to one property still sees the whole account's recommendations.
  const key = await createKey(t, tree.accountId, tree.properties[2], ['insights:read']);

  const first = await get(t, key, '/insights/recommendations?limit=1');
  assert.deepEqual(Object.keys(first.data[0]).sort(), RECOMMENDATION_FIELDS);
  assert.deepEqual(first.data[0], {
    id: full.id, title: 'Train staff', body: 'Check-in waits are long.', priority: 'medium', impact: 'high',
    canonical_label_id: food.id, created_at: at(9),
  });
  assert.equal(first.has_more, true);
  const { ids, pages } = await allPages(t, key, '/insights/recommendations', 2);
  assert.deepEqual(ids, [full.id, made[4].id, made[3].id, made[2].id, made[1].id, made[0].id]);
  assert.equal(pages, 3);
  const last = (await get(t, key, '/insights/recommendations')).data.at(-1);
  assert.equal(last.impact, null);
  assert.equal(last.canonical_label_id, null);
  for (const query of ['limit=0', 'limit=101', 'cursor=x', 'sort=asc']) {
    await get(t, key, `/insights/recommendations?${query}`, 400);
  }
});

eachDatabase('operator recommendation and mention bodies are validated; labels must be readable by the account', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const theirs = await topic(t, other.accountId, { name: 'Pool' });
  const own = await topic(t, tree.accountId, { name: 'Spa' });
  const review = await createReview(t, tree.accountId, tree.properties[0]);

  const recs: [Record<string, unknown>, RegExp][] = [
    [{ canonical_label_id: theirs.id }, /canonical_label_id/],
    [{ canonical_label_id: UNKNOWN }, /canonical_label_id/],
    [{ title: undefined }, /title/],
    [{ priority: 3 }, /priority/],
    [{ created_at: 'now' }, /created_at/],
    [{ author: 'x' }, /author/],
  ];
  for (const [body, field] of recs) {
    const r = await t.admin('POST', `/accounts/${tree.accountId}/recommendations`, { title: 'T', body: 'B', priority: 'low', ...body });
    assert.equal(r.statusCode, 400, JSON.stringify(body));
    assert.match(r.json().error, field);
  }
  const nulls = await recommendation(t, tree.accountId, { impact: null, canonical_label_id: null, created_at: null });
  assert.equal(nulls.impact, null);
  assert.equal((await t.admin('POST', `/accounts/${UNKNOWN}/recommendations`, { title: 'T', body: 'B', priority: 'low' })).statusCode, 404);

  const mentions: [Record<string, unknown>, RegExp][] = [
    [{ canonical_label_id: theirs.id }, /canonical_label_id/],
    [{ canonical_label_id: UNKNOWN }, /canonical_label_id/],
    [{ canonical_label_id: undefined }, /canonical_label_id/],
    [{ canonical_label_id: own.id, confidence: 1.5 }, /confidence/],
    [{ canonical_label_id: own.id, sentiment: 'ecstatic' }, /sentiment/],
    [{ canonical_label_id: own.id, custom_category_id: 'cat' }, /custom_category_id/],
    [{ canonical_label_id: own.id, text: undefined }, /text/],
    [{ canonical_label_id: own.id, review_id: review.id }, /review_id/],
  ];
  for (const [body, field] of mentions) {
    const r = await t.admin('POST', `/reviews/${review.id}/mentions`, { text: 'x', source_field: 'text', ...body });
    assert.equal(r.statusCode, 400, JSON.stringify(body));
    assert.match(r.json().error, field);
  }
  for (const id of [UNKNOWN, 'nope']) {
    const r = await t.admin('POST', `/reviews/${id}/mentions`, { text: 'x', source_field: 'text', canonical_label_id: own.id });
    assert.equal(r.statusCode, 404);
  }
  // Another account's review cannot take this account's topic either.
  const theirReview = await createReview(t, other.accountId, other.properties[0]);
  assert.equal((await t.admin('POST', `/reviews/${theirReview.id}/mentions`, { text: 'x', source_field: 'text', canonical_label_id: own.id })).statusCode, 400);
});

eachDatabase('GET /insights/mentions pages the subtree\'s mentions newest first; is_hidden follows the review', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const [p1, p2, p3] = tree.properties;
  const food = await topic(t, null, { name: 'Food' });
  const own = await topic(t, tree.accountId, { name: 'Breakfast', parent_label_id: food.id });
  const r1 = await createReview(t, tree.accountId, p1);
  const r2 = await createReview(t, tree.accountId, p2, { is_hidden: true });
  const r3 = await createReview(t, tree.accountId, p3, { platform: 'booking', external_id: 'moving' });
  const m1 = await mention(t, r1.id, {
    canonical_label_id: own.id, text: 'eggs were cold', source_field: 'title', sentiment: 'negative', confidence: 0.92,
    custom_category_id: UNKNOWN, created_at: at(1),
  });
  const m2 = await mention(t, r1.id, { canonical_label_id: food.id, created_at: at(2) });
  const m3 = await mention(t, r2.id, { canonical_label_id: food.id, created_at: at(2) }); // same time as m2
  const m4 = await mention(t, r3.id, { canonical_label_id: food.id, created_at: at(3) });
  const theirs = await mention(t, (await createReview(t, other.accountId, other.properties[0])).id, { canonical_label_id: food.id, created_at: at(4) });
  assert.deepEqual(Object.keys(m1).sort(), MENTION_FIELDS);
  assert.equal(m3.is_hidden, true);

  const northKey = await createKey(t, tree.accountId, tree.regions[0], ['insights:read']);
  const rootKey = await createKey(t, tree.accountId, tree.root, ['insights:read']);
  const p3Key = await createKey(t, tree.accountId, p3, ['insights:read']);

  const north = await get(t, northKey, '/insights/mentions');
  assert.deepEqual(north.data.map((m: any) => m.id), [m3.id, m2.id, m1.id]);
  assert.deepEqual({ has_more: north.has_more, next_cursor: north.next_cursor }, { has_more: false, next_cursor: null });
  assert.deepEqual(Object.keys(north.data[2]).sort(), MENTION_FIELDS);
  assert.deepEqual(north.data[2], {
    id: m1.id, review_id: r1.id, source_field: 'title', text: 'eggs were cold', sentiment: 'negative',
    canonical_label_id: own.id, custom_category_id: UNKNOWN, confidence: 0.92, is_hidden: false, created_at: at(1),
  });
  assert.deepEqual(north.data[1], {
    id: m2.id, review_id: r1.id, source_field: 'text', text: 'the breakfast', sentiment: null,
    canonical_label_id: food.id, custom_category_id: null, confidence: null, is_hidden: false, created_at: at(2),
  });
  assert.equal(north.data[0].is_hidden, true);

  const { ids, pages } = await allPages(t, rootKey, '/insights/mentions', 2);
  assert.deepEqual(ids, [m4.id, m3.id, m2.id, m1.id]);
  assert.equal(pages, 2);
  assert.ok(!ids.includes(theirs.id));
  assert.deepEqual((await get(t, p3Key, '/insights/mentions')).data.map((m: any) => m.id), [m4.id]);

  // Hiding and unhiding a review through the admin API flips its mentions at once.
  assert.equal((await t.admin('PATCH', `/reviews/${r1.id}`, { is_hidden: true })).statusCode, 200);
  assert.equal((await t.admin('PATCH', `/reviews/${r2.id}`, { is_hidden: false })).statusCode, 200);
  const flipped = await get(t, northKey, '/insights/mentions');
  assert.deepEqual(flipped.data.map((m: any) => [m.id, m.is_hidden]), [[m3.id, false], [m2.id, true], [m1.id, true]]);

  // A review moved to another node (re-imported with a new node_id) takes its mentions along.
  const moved = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: p2, platform: 'booking', external_id: 'moving', reviewed_at: r3.reviewed_at, rating: 4,
  });
  assert.equal(moved.statusCode, 200, moved.body);
  assert.deepEqual((await get(t, p3Key, '/insights/mentions')).data, []);
  assert.deepEqual((await get(t, northKey, '/insights/mentions')).data.map((m: any) => m.id), [m4.id, m3.id, m2.id, m1.id]);
});

eachDatabase('insight routes: no key 401; missing scope, plan without insights 403', async (t) => {
  const tree = await createTree(t);
  const paths = ['/insights/recommendations', '/insights/mentions', '/insights/topics'];
  const noScope = await createKey(t, tree.accountId, tree.root, ['reviews:read', 'analytics:read', 'surveys:read']);
  const limited = await createTree(t, { plan_features: ['reviews', 'surveys', 'analytics', 'nodes', 'guests', 'webhooks'] });
  const planKey = await createKey(t, limited.accountId, limited.root, ['insights:read']);
  for (const path of paths) {
    assert.equal((await t.api(null, 'GET', path)).statusCode, 401, path);
    const scope = await t.api(noScope, 'GET', path);
    assert.equal(scope.statusCode, 403, path);
    assert.match(scope.json().error, /insights:read/);
    const plan = await t.api(planKey, 'GET', path);
    assert.equal(plan.statusCode, 403, path);
    assert.match(plan.json().error, /plan/);
  }
});
