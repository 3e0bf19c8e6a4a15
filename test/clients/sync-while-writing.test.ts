// Incremental sync through the typed client while replies are written: a client walks every review
// oldest change first (sort=updated_at), then again from the last updated_at it saw, until nothing
// is new. Meanwhile another writer replies to reviews. Every review arrives, no version arrives
// twice, and the client's last copy of each review is the server's final one.
import assert from 'node:assert/strict';
import { createReputeClient, pages, type Schemas } from '../../clients/typescript/src/index.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

eachDatabase('a sync with updated_since misses and repeats nothing while replies are written', async (t) => {
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const tree = await createTree(t);
  const ids: string[] = [];
  for (let i = 0; i < 120; i++) ids.push((await createReview(t, tree.accountId, tree.properties[i % 3]!, { rating: 1 + (i % 5) })).id);
  const client = createReputeClient({ baseUrl: address, apiKey: await createKey(t, tree.accountId, tree.root, ['reviews:read']) });

  // The writer: replies to 60 reviews, one at a time, while the client syncs.
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < 60 && writing; i++) {
      const r = await t.admin('PUT', `/reviews/${ids[(i * 7) % ids.length]}/reply`, { text: `Thank you #${i}` });
      assert.equal(r.statusCode, 200, r.body);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    writing = false;
  })();

  try {
    await syncUntilCaughtUp();
  } finally {
    writing = false;
    await writer.catch(() => {});
  }
  async function syncUntilCaughtUp(): Promise<void> {
  const copies = new Map<string, Schemas['Review']>();
  const versions = new Set<string>();
  let since: string | undefined;
  let quietPasses = 0;
  // A pass that finds nothing new after the writer stopped, and then one more: caught up. On
  // PostgreSQL the sync horizon holds back changes younger than about a second, hence the wait.
  for (let pass = 0; pass < 1000 && quietPasses < 2; pass++) {
    let fresh = 0;
    // A pass keeps its updated_since (the cursor is bound to it); the next pass starts from the newest stamp seen.
    const from = since;
    for await (const review of pages((cursor) => client.GET('/reviews', {
      params: { query: { sort: 'updated_at', limit: 25, cursor, ...(from ? { updated_since: from } : {}) } },
    }))) {
      const version = `${review.id}@${review.updated_at}`;
      if (from === undefined || review.updated_at > from || !versions.has(version)) {
        assert.ok(!versions.has(version), `version ${version} arrived twice`);
        fresh += 1;
      }
      versions.add(version);
      copies.set(review.id, review);
      if (since === undefined || review.updated_at > since) since = review.updated_at;
    }
    quietPasses = fresh === 0 && !writing ? quietPasses + 1 : 0;
    if (quietPasses > 0) await new Promise((resolve) => setTimeout(resolve, 1100));
    else if (fresh === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(quietPasses, 2, 'the sync caught up');
  assert.deepEqual([...copies.keys()].sort(), [...ids].sort(), 'every review arrived');
  for (const id of ids) {
    const server = (await t.api(await createKey(t, tree.accountId, tree.root, ['reviews:read']), 'GET', `/reviews/${id}`)).json();
    assert.deepEqual(copies.get(id), server, `the client's copy of ${id} is the server's`);
  }
  }
}, { env: { RATE_LIMIT_MAX: '100000' } });
