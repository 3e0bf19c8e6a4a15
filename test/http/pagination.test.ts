// Cursors are bound to the list they page (account, route, path parameters) and signed: a cursor
// that decodes but was forged, edited or taken from another list answers 400; `limit` is a plain
// decimal integer 1–100 and nothing else.
import assert from 'node:assert/strict';
import { listBinding, cursorsFor } from '../../src/http/pagination.ts';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

const INVALID = /^querystring\.cursor is invalid/;

async function page(t: TestApp, key: string, path: string): Promise<any> {
  const r = await t.api(key, 'GET', path);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

function refused(r: { statusCode: number; json(): any; body: string }, pattern: RegExp): void {
  assert.equal(r.statusCode, 400, r.body);
  assert.match(r.json().error, pattern);
}

eachDatabase('a cursor that decodes but was forged, edited or taken from another list answers 400', async (t) => {
  const a = await createTree(t);
  const b = await createTree(t);
  const keyA = await createKey(t, a.accountId, a.root);
  const keyB = await createKey(t, b.accountId, b.root);
  const reviews = [];
  for (let i = 0; i < 3; i++) reviews.push(await createReview(t, a.accountId, a.properties[0]));
  for (let i = 0; i < 3; i++) await createReview(t, b.accountId, b.properties[0]);
  for (let i = 0; i < 3; i++) {
    const r = await t.admin('POST', `/accounts/${a.accountId}/recommendations`, { title: `R${i}`, body: 'b', priority: 'high' });
    assert.equal(r.statusCode, 201, r.body);
  }

  const first = await page(t, keyA, '/reviews?limit=1');
  const cursor: string = first.next_cursor;
  assert.equal((await page(t, keyA, `/reviews?limit=1&cursor=${cursor}`)).data[0].id, reviews[1].id, 'the real cursor pages on');

  // The pre-binding form: base64url of [time, id], which decodes fine, pointing anywhere the client likes.
  const forged = Buffer.from(JSON.stringify(['2099-01-01T00:00:00.000Z', reviews[0].id])).toString('base64url');
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${forged}`), INVALID);
  // The same position with the tag of another one, a truncated tag, an edited position, extra parts.
  const [position, tag] = cursor.split('.') as [string, string];
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${forged}.${tag}`), INVALID);
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${position}.${tag.slice(0, -2)}`), INVALID);
  const edited = Buffer.from(Buffer.from(position, 'base64url').toString().replace(/"\d{4}/, '"2099')).toString('base64url');
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${edited}.${tag}`), INVALID);
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${cursor}.${tag}`), INVALID);
  // Another list of the same account, and the same list of another account.
  refused(await t.api(keyA, 'GET', `/insights/recommendations?cursor=${cursor}`), INVALID);
  refused(await t.api(keyB, 'GET', `/reviews?cursor=${cursor}`), INVALID);
  const recommendations = await page(t, keyA, '/insights/recommendations?limit=1');
  refused(await t.api(keyA, 'GET', `/reviews?cursor=${recommendations.next_cursor}`), INVALID);
  refused(await t.api(keyA, 'GET', `/insights/mentions?cursor=${recommendations.next_cursor}`), INVALID);

  // A cursor sealed for the list under the server's key (what the benchmark makes) is accepted.
  const sealed = cursorsFor(t.config.secretKey).seal(listBinding(a.accountId, '/api/v4/reviews', {}), { time: reviews[2].reviewed_at, id: reviews[2].id });
  assert.deepEqual((await page(t, keyA, `/reviews?cursor=${sealed}`)).data.map((r: any) => r.id), [reviews[1].id, reviews[0].id]);
});

eachDatabase('a cursor of one survey\'s responses is refused on another survey\'s responses', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const surveys: string[] = [];
  for (const name of ['One', 'Two']) {
    const s = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.properties[0], name, definition: {}, status: 'published' });
    assert.equal(s.statusCode, 201, s.body);
    surveys.push(s.json().id);
    for (let i = 0; i < 2; i++) {
      const r = await t.admin('POST', `/surveys/${s.json().id}/responses`, { node_id: tree.properties[0], channel: 'email', status: 'completed' });
      assert.equal(r.statusCode, 201, r.body);
    }
  }
  const first = await page(t, key, `/surveys/${surveys[0]}/responses?limit=1`);
  assert.equal((await page(t, key, `/surveys/${surveys[0]}/responses?limit=1&cursor=${first.next_cursor}`)).data.length, 1);
  refused(await t.api(key, 'GET', `/surveys/${surveys[1]}/responses?limit=1&cursor=${first.next_cursor}`), INVALID);
});

eachDatabase('limit is a plain decimal integer from 1 to 100: 0x10, +5, " 5", 1.0 and 007 answer 400', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  for (let i = 0; i < 6; i++) await createReview(t, tree.accountId, tree.properties[0]);
  for (const path of ['/reviews', '/surveys', '/insights/recommendations', '/insights/mentions']) {
    for (const limit of ['0x10', '%2B5', '%205', '5%20', '1.0', '007', '1e1', '0', '101', '-1', '', '5&limit=6']) {
      refused(await t.api(key, 'GET', `${path}?limit=${limit}`), /^querystring\.limit /);
    }
  }
  assert.equal((await page(t, key, '/reviews?limit=5')).data.length, 5);
  assert.equal((await page(t, key, '/reviews?limit=100')).data.length, 6);
  assert.equal((await page(t, key, '/reviews?limit=1')).data.length, 1);
});
