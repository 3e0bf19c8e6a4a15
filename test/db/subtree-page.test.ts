// subtreePage: every query shape (account scan, filtered account scan, per-node seeks) returns the
// same pages in the same order, ties on time broken by id, and the shape choice follows the sizes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { subtreePageQuery, subtreeShape, type NodeFilter, type SubtreeShape } from '../../src/db/subtree-page.ts';
import { reviewPageQuery, type ReviewPublicRow } from '../../src/modules/reviews/repository.ts';
import type { Keyset } from '../../src/db/keyset.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import type { TestApp } from '../support/app.ts';

async function pageThrough(t: TestApp, scope: Parameters<typeof reviewPageQuery>[1], shape: SubtreeShape, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: Keyset | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const rows: ReviewPublicRow[] = (await t.ctx.db.executeQuery(reviewPageQuery(t.ctx.db, scope, after, limit, shape))).rows;
    ids.push(...rows.slice(0, limit).map((r) => r.id));
    if (rows.length <= limit) return ids;
    const last = rows[limit - 1]!;
    after = { time: last.reviewed_at, id: last.id };
  }
  throw new Error('did not end');
}

eachDatabase('every subtree page shape gives the same pages, newest first, ties broken by id', async (t) => {
  const tree = await createTree(t);
  const expected: { id: string; at: string }[] = [];
  for (let i = 0; i < 23; i++) {
    // Three reviews share each timestamp; the third property lies outside the scope.
    const at = new Date(Date.UTC(2026, 2, 1 + Math.floor(i / 3))).toISOString();
    const node = tree.properties[i % 3]!;
    const review = await createReview(t, tree.accountId, node, { reviewed_at: at });
    if (node !== tree.properties[2]) expected.push({ id: review.id, at });
  }
  expected.sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1));
  const scope = { accountId: tree.accountId, nodes: [tree.regions[0], tree.properties[0], tree.properties[1]], wholeAccount: false };

  for (const shape of ['account-nodes', 'per-node'] as const) {
    for (const limit of [1, 4, 25]) {
      assert.deepEqual(await pageThrough(t, scope, shape, limit), expected.map((e) => e.id), `${shape}, limit ${limit}`);
    }
  }
  // The whole account, through the account scan.
  const all = await pageThrough(t, { accountId: tree.accountId, nodes: [], wholeAccount: true }, 'account', 5);
  assert.equal(all.length, 23);

  // And through HTTP, with the shape the key's principal picks.
  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await t.api(key, 'GET', `/reviews?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.statusCode, 200, r.body);
    seen.push(...r.json().data.map((x: { id: string }) => x.id));
    cursor = r.json().next_cursor;
  } while (cursor);
  assert.deepEqual(seen, expected.map((e) => e.id));
});

test('shape choice: account, one node, per-node seeks for a small share, filtered scan for a large one', () => {
  const nodes = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(5), wholeAccount: true }), 'account');
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(1), wholeAccount: false }), 'node');
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(11), wholeAccount: false }), 'per-node');
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(11), wholeAccount: false, accountNodes: 1000 }), 'per-node');
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(11), wholeAccount: false, accountNodes: 56 }), 'account-nodes');
  assert.equal(subtreeShape({ accountId: 'a', nodes: nodes(65), wholeAccount: false, accountNodes: 100_000 }), 'account-nodes');
});

eachDatabase('a templated page query binds each call\'s values into exactly the SQL a fresh build gives', async (t) => {
  const tree = await createTree(t);
  const db = t.ctx.db;
  const base = (filter: NodeFilter) => {
    const query = db.selectFrom('reviews').select(['id', 'reviewed_at', 'node_id']);
    switch (filter.kind) {
      case 'account': return query.where('account_id', '=', filter.accountId);
      case 'account-nodes': return query.where('account_id', '=', filter.accountId).where('node_id', 'in', filter.nodes);
      case 'node': return query.where('node_id', '=', filter.nodeId);
    }
  };
  const scopes = [
    { accountId: tree.accountId, nodes: [tree.regions[0], tree.properties[0], tree.properties[1]], wholeAccount: false },
    { accountId: tree.accountId, nodes: [tree.regions[1], tree.properties[2], tree.root], wholeAccount: false },
    { accountId: tree.accountId, nodes: [tree.properties[2]], wholeAccount: false },
  ];
  const afters = [null, { time: '2026-03-01T00:00:00.000Z', id: tree.root }, { time: '2026-04-01T00:00:00.000Z', id: tree.regions[0] }];
  for (const shape of ['account', 'account-nodes', 'per-node', 'node'] as const) {
    for (const scope of scopes) {
      for (const after of afters) {
        const fresh = subtreePageQuery(db, scope, after, 7, 'reviewed_at', base, shape);
        const templated = subtreePageQuery(db, scope, after, 7, 'reviewed_at', base, shape, 'subtree-page-test');
        assert.equal(templated.sql, fresh.sql, `${shape} sql`);
        assert.deepEqual(templated.parameters, fresh.parameters, `${shape} parameters`);
      }
    }
  }
});
