// GET /reviews filters: each filter's effect, bad values, combinations paged across pages, the
// cursor bound to its filters, node_id outside the key's subtree.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree, type Tree } from '../support/factories.ts';
import type { TestApp } from '../support/app.ts';

interface Seeded {
  tree: Tree;
  key: string;
  all: any[];
}

/** 24 reviews over 3 platforms, ratings 1–5, two languages, every other one replied, at three properties. */
async function seed(t: TestApp): Promise<Seeded> {
  const tree = await createTree(t);
  const platforms = ['google', 'booking', 'tripadvisor'];
  const all: any[] = [];
  for (let i = 0; i < 24; i++) {
    all.push(await createReview(t, tree.accountId, tree.properties[i % 3]!, {
      platform: platforms[i % 3], rating: (i % 5) + 1, language: i % 4 === 0 ? 'de' : 'en',
      reviewed_at: new Date(Date.UTC(2026, 2, 1 + i)).toISOString(),
      ...(i % 2 === 0 ? { owner_reply: 'Thank you' } : {}),
    }));
  }
  return { tree, key: await createKey(t, tree.accountId, tree.root, ['reviews:read']), all };
}

/** Every page of a listing, following next_cursor; the ids in order. */
async function readAll(t: TestApp, key: string, query: string, limit = 4): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const r = await t.api(key, 'GET', `/reviews?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.statusCode, 200, `${query}: ${r.body}`);
    const page = r.json();
    ids.push(...page.data.map((x: any) => x.id));
    cursor = page.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error('paging did not end');
}

const newestFirst = (rows: any[]) => [...rows].sort((a, b) => (a.reviewed_at < b.reviewed_at ? 1 : -1)).map((r) => r.id);

eachDatabase('GET /reviews: each filter keeps exactly the matching reviews, newest first, across pages', async (t) => {
  const { tree, key, all } = await seed(t);
  const cases: Array<[string, (r: any) => boolean]> = [
    ['platform=booking', (r) => r.platform === 'booking'],
    ['platform=google&platform=booking', (r) => r.platform === 'google' || r.platform === 'booking'],
    ['rating_min=4', (r) => r.rating >= 4],
    ['rating_max=2', (r) => r.rating <= 2],
    ['rating_min=2&rating_max=3', (r) => r.rating >= 2 && r.rating <= 3],
    ['rating_min=2.5&rating_max=4.0', (r) => r.rating >= 2.5 && r.rating <= 4],
    ['language=de', (r) => r.language === 'de'],
    ['replied=true', (r) => r.owner_reply !== null],
    ['replied=false', (r) => r.owner_reply === null],
    [`node_id=${tree.regions[0]}`, (r) => r.node_id === tree.properties[0] || r.node_id === tree.properties[1]],
    [`node_id=${tree.properties[2]}`, (r) => r.node_id === tree.properties[2]],
    ['from=2026-03-05T00:00:00Z&to=2026-03-10T00:00:00Z', (r) => r.reviewed_at >= '2026-03-05T00:00:00.000Z' && r.reviewed_at < '2026-03-10T00:00:00.000Z'],
    ['from=2026-03-05T01:00:00%2B01:00', (r) => r.reviewed_at >= '2026-03-05T00:00:00.000Z'],
    ['platform=google&rating_max=2&replied=false', (r) => r.platform === 'google' && r.rating <= 2 && r.owner_reply === null],
    [`platform=booking&platform=google&rating_min=2&node_id=${tree.regions[0]}&language=en`,
      (r) => ['booking', 'google'].includes(r.platform) && r.rating >= 2 && r.language === 'en' && r.node_id !== tree.properties[2]],
  ];
  for (const [query, keep] of cases) {
    const expected = newestFirst(all.filter(keep));
    assert.ok(expected.length > 0 && expected.length < all.length, `${query} must select some but not all`);
    assert.deepEqual(await readAll(t, key, query, 3), expected, query);
  }
  // A key bound to a region: node_id narrows within it; the filters apply the same way.
  const regional = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  assert.deepEqual(await readAll(t, regional, 'platform=google'), newestFirst(all.filter((r) => r.platform === 'google' && r.node_id !== tree.properties[2])));
  assert.deepEqual(await readAll(t, regional, `node_id=${tree.properties[1]}`), newestFirst(all.filter((r) => r.node_id === tree.properties[1])));
});

eachDatabase('GET /reviews: bad filter values answer 400 naming the parameter and its rule', async (t) => {
  const { key } = await seed(t);
  const bad: Array<[string, RegExp]> = [
    ['rating_min=6', /rating_min.*(<=|5)/],
    ['rating_max=-1', /rating_max/],
    ['rating_min=abc', /rating_min.*number/],
    // Read as numbers by a plain coercion (Infinity past every maximum, a space as 0): refused as written.
    ['rating_min=Infinity', /^querystring\.rating_min must be a number written in plain decimal digits/],
    ['rating_min=1e309', /rating_min must be a number written in plain decimal digits/],
    ['rating_max=%20', /rating_max must be a number written in plain decimal digits/],
    ['rating_max=0x3', /rating_max must be a number written in plain decimal digits/],
    ['rating_min=4&rating_max=2', /rating_min must be at most rating_max/],
    ['replied=maybe', /replied.*boolean/],
    ['node_id=not-a-uuid', /node_id.*uuid/],
    ['from=yesterday', /from must be a date-time/],
    ['to=2026-13-01T00:00:00Z', /to must be a date-time/],
    ['from=2026-03-05T00:00:00Z&to=2026-03-05T00:00:00Z', /from must be before to/],
    ['language=', /language/],
    ['platform=', /platform/],
    ['sort=rating', /sort/],
    ['updated_since=2026-01-01T00:00:00Z', /updated_since needs sort=updated_at/],
    ['updated_since=soon&sort=updated_at', /updated_since must be a date-time/],
    ['colour=red', /colour/],
  ];
  for (const [query, rule] of bad) {
    const r = await t.api(key, 'GET', `/reviews?${query}`);
    assert.equal(r.statusCode, 400, `${query}: ${r.body}`);
    assert.match(r.json().error, rule, query);
    assert.ok(['field_invalid', 'field_unknown'].includes(r.json().code), `${query}: ${r.body}`);
  }
});

eachDatabase('GET /reviews: a cursor is bound to its filters (400 with others), and repeated values in any order are one filter', async (t) => {
  const { key } = await seed(t);
  const first = (await t.api(key, 'GET', '/reviews?limit=2&platform=google&platform=booking')).json();
  assert.ok(first.next_cursor);
  const same = await t.api(key, 'GET', `/reviews?limit=2&platform=booking&platform=google&cursor=${first.next_cursor}`);
  assert.equal(same.statusCode, 200, same.body);
  for (const other of ['platform=google', 'platform=google&platform=booking&rating_min=1', '', 'platform=google&platform=booking&sort=updated_at']) {
    const r = await t.api(key, 'GET', `/reviews?limit=2&${other}&cursor=${first.next_cursor}`);
    assert.equal(r.statusCode, 400, `${other}: ${r.body}`);
    assert.equal(r.json().code, 'cursor_invalid');
    assert.match(r.json().error, /cursor.*same filters/);
  }
  // And an unfiltered list's cursor does not open a filtered one.
  const plain = (await t.api(key, 'GET', '/reviews?limit=2')).json();
  const r = await t.api(key, 'GET', `/reviews?limit=2&replied=true&cursor=${plain.next_cursor}`);
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().code, 'cursor_invalid');
});

eachDatabase('GET /reviews?node_id=: a node outside the key\'s subtree or account answers 404', async (t) => {
  const { tree } = await seed(t);
  const other = await createTree(t, { name: 'Other' });
  const regional = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  for (const nodeId of [tree.properties[2], tree.regions[1], tree.root, other.properties[0], '00000000-0000-4000-8000-000000000000']) {
    const r = await t.api(regional, 'GET', `/reviews?node_id=${nodeId}`);
    assert.equal(r.statusCode, 404, `${nodeId}: ${r.body}`);
    assert.equal(r.json().code, 'not_found');
  }
  assert.equal((await t.api(regional, 'GET', `/reviews?node_id=${tree.regions[0]}`)).statusCode, 200);
});
