// The insights pipeline: reviews queued for the engine in the transaction that wrote them, read by
// the worker (mentions replaced, sentiment computed only when none was given), crash-safe leases,
// one reader per review between workers, an account's categories, recommendations updated in place,
// and the CLI. Texts are unambiguous ("The breakfast was excellent."): these tests are about the
// pipeline; the engine's quality is measured by `npm run eval:insights`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { connect } from '../../src/db/connect.ts';
import * as queueByReviewMigration from '../../src/db/migrations/2026-11-27T0400-extraction-queue-by-review.ts';
import { createExtractor } from '../../src/extraction/index.ts';
import { claimExtractions } from '../../src/modules/insights/extraction-repository.ts';
import { extractDueBatch } from '../../src/modules/insights/extraction.ts';
import { gainOf, refreshRecommendations } from '../../src/modules/insights/recommendations.ts';
import { upsertReviewsBulk } from '../../src/modules/reviews/bulk.ts';
import { storesFor } from '../../src/stores.ts';
import { startInsightsWorker } from '../../src/process/insights-worker.ts';
import { eachDatabase } from '../support/each-database.ts';
import type { TestApp } from '../support/app.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { cliDatabaseUrl, cliEnv, repute } from '../cli/run.ts';

const extractor = createExtractor();
const silent = { warn: () => {} };
const drain = async (t: TestApp) => {
  while ((await extractDueBatch({ db: t.ctx.db, extractor, log: silent })) > 0) { /* until the queue is empty */ }
};
const queued = async (db: Kysely<DB>) => (await db.selectFrom('extraction_queue').select('review_id').execute()).map((r) => r.review_id);

async function topicNames(t: TestApp, key: string): Promise<Map<string, string>> {
  const topics = (await t.api(key, 'GET', '/insights/topics')).json().data as Array<{ id: string; name: string }>;
  return new Map(topics.map((x) => [x.id, x.name]));
}

async function mentionsOf(t: TestApp, key: string, reviewId: string) {
  const names = await topicNames(t, key);
  const page = (await t.api(key, 'GET', '/insights/mentions?limit=100')).json();
  return (page.data as any[]).filter((m) => m.review_id === reviewId).map((m) => ({ ...m, topic: names.get(m.canonical_label_id) }));
}

eachDatabase('the 14 canonical topics exist in every database, global', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const names = [...(await topicNames(t, key)).values()];
  for (const name of ['Cleanliness', 'Staff', 'Breakfast', 'Food & drink', 'Location', 'Room', 'Bed', 'Bathroom', 'Noise', 'Value', 'Wi-Fi', 'Check-in', 'Parking', 'Wellness']) {
    assert.ok(names.includes(name), name);
  }
});

eachDatabase('a written review is queued with its write, read by the engine, and a changed text replaces its mentions', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The breakfast was excellent.' });
  assert.deepEqual(await queued(t.ctx.db), [review.id]);
  assert.equal((await mentionsOf(t, key, review.id)).length, 0, 'nothing is read inline: the writer does not wait');

  await drain(t);
  assert.deepEqual(await queued(t.ctx.db), []);
  const first = await mentionsOf(t, key, review.id);
  assert.deepEqual(first.map((m) => [m.topic, m.sentiment, m.source_field]), [['Breakfast', 'positive', 'text']]);
  assert.ok('The breakfast was excellent.'.includes(first[0].text) && first[0].text.length > 10, 'the mention quotes the review verbatim');
  assert.ok(first[0].confidence > 0 && first[0].confidence <= 1);
  assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().sentiment, 'positive', 'a review without sentiment gets one computed');

  // An update that leaves the words alone queues nothing.
  const same = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: tree.properties[0], platform: review.platform, external_id: review.external_id, reviewed_at: review.reviewed_at,
    text: 'The breakfast was excellent.', rating: 5, sentiment: 'positive',
  });
  assert.ok(same.statusCode < 300, same.body);
  assert.deepEqual(await queued(t.ctx.db), []);

  const changed = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: tree.properties[0], platform: review.platform, external_id: review.external_id, reviewed_at: review.reviewed_at,
    text: 'The wifi did not work at all.', rating: 2,
  });
  assert.ok(changed.statusCode < 300, changed.body);
  assert.deepEqual(await queued(t.ctx.db), [review.id]);
  await drain(t);
  const second = await mentionsOf(t, key, review.id);
  assert.deepEqual(second.map((m) => [m.topic, m.sentiment]), [['Wi-Fi', 'negative']]);
  assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().sentiment, 'negative');
});

eachDatabase('a bulk import (repute import, the demo) queues each review with its batch, once, and a changed text again', async (t) => {
  const tree = await createTree(t);
  const bulk = { db: t.ctx.db, reviews: storesFor(t.testDb.database).reviews };
  const input = (n: number, text: string) => ({
    node_id: tree.properties[n % tree.properties.length]!, platform: 'google', external_id: `bulk-${n}`,
    reviewed_at: '2026-10-01T12:00:00.000Z', rating: 4, sentiment: 'positive' as const, text,
  });
  // Review 0 twice in one batch (its key twice in a file): queued once.
  const batch = [...Array.from({ length: 30 }, (_, n) => input(n, `The room ${n} was spotless.`)), input(0, 'The staff were lovely.')];
  const outcomes = await upsertReviewsBulk(bulk, tree.accountId, batch);
  assert.ok(outcomes.every((o) => o.status !== 'rejected'), JSON.stringify(outcomes));
  const ids = await t.ctx.db.selectFrom('reviews').select('id').where('account_id', '=', tree.accountId).execute();
  assert.equal(ids.length, 30);
  assert.deepEqual((await queued(t.ctx.db)).sort(), ids.map((r) => r.id).sort());
  await drain(t);
  assert.deepEqual(await queued(t.ctx.db), []);

  // The same review again queues nothing (its sentiment is given, so nothing is left to compute); a
  // changed text is queued again.
  await upsertReviewsBulk(bulk, tree.accountId, [input(1, 'The room 1 was spotless.'), input(2, 'The wifi kept dropping.')]);
  const changed = await t.ctx.db.selectFrom('reviews').select('id').where('external_id', '=', 'bulk-2').executeTakeFirstOrThrow();
  assert.deepEqual(await queued(t.ctx.db), [changed.id]);
});

eachDatabase('a given sentiment is kept; hidden reviews keep their mentions marked is_hidden; an operator\'s mention stays', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The pool was wonderful.', sentiment: 'negative' });
  const topics = await topicNames(t, key);
  const staff = [...topics].find(([, n]) => n === 'Staff')![0];
  const own = await t.admin('POST', `/reviews/${review.id}/mentions`, { canonical_label_id: staff, text: 'noted by the front office', source_field: 'text' });
  assert.equal(own.statusCode, 201, own.body);
  await drain(t);
  assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().sentiment, 'negative');
  const hide = await t.admin('PATCH', `/reviews/${review.id}`, { is_hidden: true });
  assert.ok(hide.statusCode < 300, hide.body);
  const mentions = await mentionsOf(t, key, review.id);
  assert.deepEqual(mentions.map((m) => [m.topic, m.is_hidden]).sort(), [['Staff', true], ['Wellness', true]]);
});

eachDatabase('a write that is refused leaves no queue row', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t);
  const refused = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: other.properties[0], platform: 'google', external_id: 'x-1', reviewed_at: '2026-01-01T00:00:00Z', text: 'The bed was comfortable.',
  });
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(await queued(t.ctx.db), []);
});

eachDatabase('a lease keeps a claimed review from a second claimer until it runs out (a dead worker\'s rows are taken again)', async (t) => {
  const tree = await createTree(t);
  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The staff were friendly.' });
  const first = await claimExtractions(t.ctx.db, '2026-11-24T00:00:00.000Z', '2026-11-24T00:01:00.000Z', 10);
  assert.deepEqual(first.map((c) => c.review_id), [review.id]);
  assert.deepEqual(await claimExtractions(t.ctx.db, '2026-11-24T00:00:30.000Z', '2026-11-24T00:01:30.000Z', 10), []);
  const again = await claimExtractions(t.ctx.db, '2026-11-24T00:02:00.000Z', '2026-11-24T00:03:00.000Z', 10);
  assert.deepEqual(again.map((c) => c.review_id), [review.id]);
});

eachDatabase('the queue keyed by review (2026-11-27 migration) keeps what waited, and claims take the oldest review first', async (t) => {
  const tree = await createTree(t);
  const older = await createReview(t, tree.accountId, tree.properties[0], { external_id: 'older', text: 'The staff were friendly.' });
  const newer = await createReview(t, tree.accountId, tree.properties[1], { text: 'The bed was hard.' });
  // The older review's text changes after the newer one was written: it is still read first.
  const changed = await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: tree.properties[0], platform: 'google', external_id: 'older', reviewed_at: older.reviewed_at, rating: 4, text: 'The staff were rude.',
  });
  assert.equal(changed.statusCode, 200, changed.body);
  // As a database migrated before it: the queue as it was, then the migration run on the rows waiting.
  await queueByReviewMigration.down(t.ctx.db);
  await queueByReviewMigration.up(t.ctx.db);
  assert.deepEqual((await queued(t.ctx.db)).sort(), [older.id, newer.id].sort());
  const first = await claimExtractions(t.ctx.db, '2026-11-24T00:00:00.000Z', '2026-11-24T00:01:00.000Z', 1);
  assert.deepEqual(first.map((c) => c.review_id), [older.id]);
  await drain(t);
  assert.deepEqual(await queued(t.ctx.db), []);
});

eachDatabase('two workers claiming at the same moment never take the same review', async (t) => {
  if (t.dialect !== 'postgres') return; // SQLite has one writer: claims are serialised by BEGIN IMMEDIATE
  const tree = await createTree(t);
  for (let i = 0; i < 40; i++) await createReview(t, tree.accountId, tree.properties[i % 3]!, { text: `The room ${i} was spacious.` });
  const second = connect(t.testDb.url, { schema: t.testDb.schema!, poolSize: 2 });
  try {
    const now = new Date().toISOString();
    const until = new Date(Date.now() + 60_000).toISOString();
    const claims = await Promise.all([
      t.ctx.db.transaction().execute((trx) => claimExtractions(trx, now, until, 25)),
      second.db.transaction().execute((trx) => claimExtractions(trx, now, until, 25)),
    ]);
    const a = claims[0].map((c) => c.review_id);
    const b = claims[1].map((c) => c.review_id);
    assert.equal(a.filter((id) => b.includes(id)).length, 0);
    assert.equal(a.length + b.length, 40);
  } finally {
    await second.destroy();
  }
});

eachDatabase('the worker loop reads new reviews by itself, woken by the commit', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const worker = startInsightsWorker({ db: t.ctx.db, commits: t.testDb.database.commits, log: t.ctx.log });
  try {
    const review = await createReview(t, tree.accountId, tree.properties[2], { text: 'Parking was far too expensive.' });
    const deadline = Date.now() + 10_000;
    let mentions: any[] = [];
    while (Date.now() < deadline && mentions.length === 0) {
      await new Promise((r) => setTimeout(r, 100));
      mentions = await mentionsOf(t, key, review.id);
    }
    assert.ok(mentions.some((m) => m.topic === 'Parking' && m.sentiment === 'negative'), JSON.stringify(mentions));
  } finally {
    await worker.stop();
  }
});

eachDatabase('an account\'s own categories: admin API rules, and a keyword match marks the mention', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const bad = await t.admin('POST', `/accounts/${tree.accountId}/categories`, { name: 'Rooftop', keywords: { en: [] } });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error, /keywords/);
  const badLanguage = await t.admin('POST', `/accounts/${tree.accountId}/categories`, { name: 'Rooftop', keywords: { English: ['x'] } });
  assert.equal(badLanguage.statusCode, 400);
  const created = await t.admin('POST', `/accounts/${tree.accountId}/categories`, { name: 'Rooftop', keywords: { en: ['Rooftop'] } });
  assert.equal(created.statusCode, 201, created.body);
  assert.deepEqual(created.json().keywords, { en: ['rooftop'] });
  assert.equal((await t.admin('PATCH', `/categories/${created.json().id}`, { name: 'x' })).statusCode, 200);
  const listed = await t.admin('GET', `/accounts/${other.accountId}/categories`);
  assert.deepEqual(listed.json().data, []);

  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The rooftop bar had delicious cocktails.' });
  await drain(t);
  const mentions = await mentionsOf(t, key, review.id);
  assert.ok(mentions.length > 0);
  assert.ok(mentions.every((m) => m.custom_category_id === created.json().id), JSON.stringify(mentions));
  assert.equal((await t.admin('DELETE', `/categories/${created.json().id}`)).statusCode, 200);
  assert.equal((await t.admin('DELETE', `/categories/${created.json().id}`)).statusCode, 404);
  assert.ok((await mentionsOf(t, key, review.id)).every((m) => m.custom_category_id === null));
});

eachDatabase('an account\'s own topic takes keyword lists through the admin API, and a match marks the mention', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const topic = await t.admin('POST', `/accounts/${tree.accountId}/topics`, { name: 'Coffee', keywords: { en: ['Espresso', 'cappuccino*'] } });
  assert.equal(topic.statusCode, 201, topic.body);
  assert.equal(topic.json().name, 'Coffee');
  // It is a category as well: listed with its keywords, as stored.
  const listed = (await t.admin('GET', `/accounts/${tree.accountId}/categories`)).json().data;
  assert.deepEqual(listed.map((c: any) => [c.id, c.keywords]), [[topic.json().id, { en: ['espresso', 'cappuccino*'] }]]);
  // Keywords are an account's own: a global topic takes none, and bad lists name the field.
  assert.equal((await t.admin('POST', '/topics', { name: 'Coffee', keywords: { en: ['espresso'] } })).statusCode, 400);
  const empty = await t.admin('POST', `/accounts/${tree.accountId}/topics`, { name: 'Tea', keywords: { en: [' '] } });
  assert.equal(empty.statusCode, 400);
  assert.match(empty.json().error, /body\.keywords/);

  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The breakfast cappuccinos were cold.' });
  await drain(t);
  const mentions = await mentionsOf(t, key, review.id);
  assert.ok(mentions.some((m) => m.custom_category_id === topic.json().id), JSON.stringify(mentions));
});

eachDatabase('recommendations come from the mentions, name property, topic and figures, and are updated in place', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const day = 86_400_000;
  for (let i = 0; i < 8; i++) {
    await createReview(t, tree.accountId, tree.properties[0], { text: 'The room was dirty and the carpet was stained.', rating: 2, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
    await createReview(t, tree.accountId, tree.properties[1], { text: 'The room was spotless.', rating: 5, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
  }
  await drain(t);
  const first = await refreshRecommendations(t.ctx.db, tree.accountId, new Date());
  assert.ok(first >= 1);
  const page = (await t.api(key, 'GET', '/insights/recommendations?limit=100')).json().data as any[];
  const names = await topicNames(t, key);
  const clean = page.find((r) => names.get(r.canonical_label_id) === 'Cleanliness' && r.title.includes('Harbour Hotel'));
  assert.ok(clean, JSON.stringify(page));
  assert.match(clean.body, /8 of 8 mentions/);
  assert.match(clean.body, /dirty/);
  // Eight guests wrote the same words: quoted once.
  const quotes = [...clean.body.matchAll(/“([^”]*)”/g)].map((m: RegExpMatchArray) => m[1]!.toLowerCase());
  assert.ok(quotes.length >= 1);
  assert.equal(new Set(quotes).size, quotes.length, clean.body);
  assert.ok(['high', 'medium', 'low'].includes(clean.priority));
  assert.ok(!page.some((r) => r.title.includes('Lake Lodge')), 'a property whose guests praise the topic gets none');
  // North's figures (8 of 16 negative) are Harbour Hotel's: the problem is listed once, at the hotel.
  assert.ok(!page.some((r) => names.get(r.canonical_label_id) === 'Cleanliness' && r.title.includes('North')), JSON.stringify(page.map((r) => r.title)));

  const second = await refreshRecommendations(t.ctx.db, tree.accountId, new Date());
  assert.equal(second, first);
  const again = (await t.api(key, 'GET', '/insights/recommendations?limit=100')).json().data as any[];
  assert.equal(again.length, page.length, 'a second pass adds nothing');
  assert.ok(again.some((r) => r.id === clean.id), 'the standing recommendation keeps its id');
});

eachDatabase('a recommendation\'s impact counts each complaining review once, however often it complains', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const day = 86_400_000;
  // Harbour Hotel: 4 reviews rated 3 that each complain twice about noise, 6 rated 4 that say nothing of it.
  for (let i = 0; i < 10; i++) {
    const complains = i < 4;
    await createReview(t, tree.accountId, tree.properties[0], {
      text: complains ? 'The street was very noisy. The neighbours were loud all night.' : 'Lovely breakfast.',
      rating: complains ? 3 : 4, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString(),
    });
  }
  await drain(t);
  await refreshRecommendations(t.ctx.db, tree.accountId, new Date());
  const page = (await t.api(key, 'GET', '/insights/recommendations?limit=100')).json().data as any[];
  const names = await topicNames(t, key);
  const noise = page.find((r) => names.get(r.canonical_label_id) === 'Noise' && r.title.includes('Harbour Hotel'));
  assert.ok(noise, JSON.stringify(page));
  assert.match(noise.body, /8 of 8 mentions/);
  // (4 of 10 reviews) × (4 − 3 stars) = +0.40. Counted by mention (8 complaining, against 2 others) it
  // read +1.40, all the stars the hotel's 3.6 had left.
  assert.equal(noise.impact, 'about +0.40 on the average rating (of 5)');
});

eachDatabase('a problem spread over a group\'s hotels, each with too few mentions of its own, is the group\'s recommendation', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const day = 86_400_000;
  for (let i = 0; i < 4; i++) {
    for (const property of [tree.properties[0], tree.properties[1]]) {
      await createReview(t, tree.accountId, property, { text: 'The room was dirty.', rating: 2, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
    }
  }
  await drain(t);
  await refreshRecommendations(t.ctx.db, tree.accountId, new Date());
  const page = (await t.api(key, 'GET', '/insights/recommendations?limit=100')).json().data as any[];
  const names = await topicNames(t, key);
  const titles = page.filter((r) => names.get(r.canonical_label_id) === 'Cleanliness').map((r) => r.title as string);
  assert.deepEqual(titles, ['Cleanliness at North: 100 % of mentions negative'], 'the region whose two hotels share the problem, once');
});

eachDatabase('repute insights extract reads the reviews again with progress; recommend refreshes', async (t) => {
  const tree = await createTree(t);
  await createReview(t, tree.accountId, tree.properties[0], { text: 'The shower was cold.' });
  await drain(t);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const extract = await repute(['insights', 'extract', '--account', tree.accountId], env);
  assert.equal(extract.code, 0, extract.stderr);
  const summary = JSON.parse(extract.stdout);
  assert.equal(summary.queued, 1);
  assert.equal(summary.extracted, 1);
  const badSince = await repute(['insights', 'extract', '--since', 'yesterday'], env);
  assert.equal(badSince.code, 2);
  assert.match(badSince.stderr, /--since/);
  const recommend = await repute(['insights', 'recommend', '--account', tree.accountId], env);
  assert.equal(recommend.code, 0, recommend.stderr);
  assert.ok(tree.accountId in JSON.parse(recommend.stdout).recommendations);
});

eachDatabase('a computed sentiment moves the review\'s change stamp, so a client syncing by updated_at sees it', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The breakfast was excellent.' });
  const before = (await t.api(key, 'GET', `/reviews/${review.id}`)).json();
  assert.equal(before.sentiment, null);
  // What a syncing client gets from a stamp on, once the sync horizon (PostgreSQL: a second behind
  // the oldest open transaction) has passed the change: it asks again until then, as clients do.
  const syncUntil = async (since: string | null, seen: (r: { id: string; sentiment: string | null }) => boolean) => {
    const query = `/reviews?sort=updated_at&limit=100${since ? `&updated_since=${encodeURIComponent(since)}` : ''}`;
    for (let tries = 0; tries < 50; tries++) {
      const page = (await t.api(key, 'GET', query)).json() as { data: Array<{ id: string; sentiment: string | null }> };
      if (page.data.some(seen)) return page.data;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`a sync from ${since} never showed the change`);
  };
  await syncUntil(null, (r) => r.id === review.id && r.sentiment === null);

  await drain(t);
  const after = (await t.api(key, 'GET', `/reviews/${review.id}`)).json();
  assert.equal(after.sentiment, 'positive');
  assert.ok(after.updated_at > before.updated_at, `${after.updated_at} > ${before.updated_at}`);
  await syncUntil(before.updated_at, (r) => r.id === review.id && r.sentiment === 'positive');

  // Read again with the same words: the sentiment stays, and so does the stamp.
  await t.ctx.db.insertInto('extraction_queue').values({ review_id: review.id, account_id: tree.accountId, enqueued_at: new Date().toISOString(), lease_until: null, attempts: 0 }).execute();
  await drain(t);
  assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().updated_at, after.updated_at);
});

test('a recommendation never promises more stars than the average has left (mentions can outnumber reviews)', () => {
  // Four reviews, mean 3 stars (ratings 0–100: two at 20, two at 100); three negative mentions, two of one review.
  const node = { node_id: 'n', reviews: 4, rating_sum: 240, rating_count: 4 };
  assert.equal(gainOf({ total: 3, negative: 3, ratingSum: 60, ratingCount: 3 }, node), 2);
  // One complaining review of four, at 1 star against the others' 5: +1.00, as computed.
  assert.equal(gainOf({ total: 1, negative: 1, ratingSum: 20, ratingCount: 1 }, { node_id: 'n', reviews: 4, rating_sum: 320, rating_count: 4 }), 1);
});
