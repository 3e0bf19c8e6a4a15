// GET /analytics/scores: exact figures of a hand-computed fixture, how review writes move them, scoping, auth.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import * as monthlyStarsMigration from '../../src/db/migrations/2026-11-26T1200-monthly-stars-and-reply-times.ts';
import { createKey, createReview, createTree, type Tree } from '../support/factories.ts';
import type { TestApp } from '../support/app.ts';

const SCORE_FIELDS = [
  'node_id', 'overall_score', 'overall_score_normalized', 'platform_scores', 'recommend_rate', 'response_rate', 'total_reviews',
];

/**
 * The fixture (rating_normalized defaults to rating × 20 unless given):
 *   p1 (North) R1 google      4.2 (84)   recommends     replied
 *              R2 google      4.5 (90)   does not       -
 *              R3 booking     -   (85)   no flag        -
 *              R4 google      1   (20)   does not       replied   HIDDEN
 *   p2 (North) R5 tripadvisor 4   (80)   no flag        replied
 *              R6 booking     3.5 (52)   recommends     -
 *   p3 (South) R7 google      5   (100)  recommends     replied
 *              R8 tripadvisor -   (-)    does not       -
 *              R9 google      2   (40)   recommends     replied   HIDDEN
 */
async function fixture(t: TestApp, tree: Tree) {
  const [p1, p2, p3] = tree.properties;
  const review = (node: string, body: Record<string, unknown>) => createReview(t, tree.accountId, node, body);
  return {
    r1: await review(p1, { platform: 'google', rating: 4.2, recommend: true, owner_reply: 'Thank you!' }),
    r2: await review(p1, { platform: 'google', rating: 4.5, recommend: false }),
    r3: await review(p1, { platform: 'booking', rating: null, rating_normalized: 85 }),
    r4: await review(p1, { platform: 'google', rating: 1, recommend: false, owner_reply: 'Sorry.', is_hidden: true }),
    r5: await review(p2, { platform: 'tripadvisor', rating: 4, owner_reply: 'Thanks.' }),
    r6: await review(p2, { platform: 'booking', rating: 3.5, rating_normalized: 52, recommend: true, external_id: 'r6' }),
    r7: await review(p3, { platform: 'google', rating: 5, recommend: true, owner_reply: 'Come back soon.' }),
    r8: await review(p3, { platform: 'tripadvisor', rating: null, recommend: false, external_id: 'r8' }),
    r9: await review(p3, { platform: 'google', rating: 2, recommend: true, owner_reply: 'Noted.', is_hidden: true }),
  };
}

async function scores(t: TestApp, key: string): Promise<any> {
  const r = await t.api(key, 'GET', '/analytics/scores');
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

eachDatabase('GET /analytics/scores gives the exact figures of the visible reviews of the subtree', async (t) => {
  const tree = await createTree(t);
  await fixture(t, tree);
  const rootKey = await createKey(t, tree.accountId, tree.root, ['analytics:read']);
  const northKey = await createKey(t, tree.accountId, tree.regions[0], ['analytics:read']);
  const southKey = await createKey(t, tree.accountId, tree.regions[1], ['analytics:read']);
  const p3Key = await createKey(t, tree.accountId, tree.properties[2], ['analytics:read']);

  const root = await scores(t, rootKey);
  assert.deepEqual(Object.keys(root).sort(), SCORE_FIELDS);
  assert.deepEqual(Object.keys(root.platform_scores[0]).sort(), ['platform', 'reviews', 'score', 'score_normalized']);
  assert.deepEqual(root, {
    node_id: tree.root,
    // visible: R1 R2 R3 R5 R6 R7 R8
    total_reviews: 7,
    // (4.2 + 4.5 + 4 + 3.5 + 5) / 5 = 21.2 / 5 = 4.24
    overall_score: 4.2,
    // (84 + 90 + 85 + 80 + 52 + 100) / 6 = 491 / 6 = 81.83…
    overall_score_normalized: 81.8,
    // flagged R1 R2 R6 R7 R8, recommending R1 R6 R7: 3 / 5
    recommend_rate: 60,
    // replied R1 R5 R7 of 7: 42.857…
    response_rate: 42.9,
    platform_scores: [
      // R3 R6: rating 3.5 / 1; normalized (85 + 52) / 2 = 68.5
      { platform: 'booking', score: 3.5, score_normalized: 68.5, reviews: 2 },
      // R1 R2 R7: 13.7 / 3 = 4.566…; (84 + 90 + 100) / 3 = 91.33…
      { platform: 'google', score: 4.6, score_normalized: 91.3, reviews: 3 },
      // R5 R8: 4 / 1; 80 / 1
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 2 },
    ],
  });

  assert.deepEqual(await scores(t, northKey), {
    node_id: tree.regions[0],
    // R1 R2 R3 R5 R6
    total_reviews: 5,
    // (4.2 + 4.5 + 4 + 3.5) / 4 = 16.2 / 4 = 4.05: a tie, rounds away from zero
    overall_score: 4.1,
    // (84 + 90 + 85 + 80 + 52) / 5 = 391 / 5 = 78.2
    overall_score_normalized: 78.2,
    // flagged R1 R2 R6, recommending R1 R6: 2 / 3 = 66.66…
    recommend_rate: 66.7,
    // replied R1 R5 of 5
    response_rate: 40,
    platform_scores: [
      { platform: 'booking', score: 3.5, score_normalized: 68.5, reviews: 2 },
      // R1 R2: 8.7 / 2 = 4.35, a tie, rounds up; (84 + 90) / 2 = 87
      { platform: 'google', score: 4.4, score_normalized: 87, reviews: 2 },
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 1 },
    ],
  });

  const south = {
    node_id: tree.regions[1],
    // R7 R8 (R9 hidden)
    total_reviews: 2,
    overall_score: 5,
    overall_score_normalized: 100,
    // flagged R7 R8, recommending R7: 1 / 2
    recommend_rate: 50,
    // replied R7 of 2
    response_rate: 50,
    platform_scores: [
      { platform: 'google', score: 5, score_normalized: 100, reviews: 1 },
      // R8 has neither rating: counted as a review, no score
      { platform: 'tripadvisor', score: null, score_normalized: null, reviews: 1 },
    ],
  };
  assert.deepEqual(await scores(t, southKey), south);
  assert.deepEqual(await scores(t, p3Key), { ...south, node_id: tree.properties[2] });
});

eachDatabase('hiding, unhiding, replying, updating and moving reviews through the admin API move the scores', async (t) => {
  const tree = await createTree(t);
  const f = await fixture(t, tree);
  const [, p2] = tree.properties;
  const northKey = await createKey(t, tree.accountId, tree.regions[0], ['analytics:read']);
  const southKey = await createKey(t, tree.accountId, tree.regions[1], ['analytics:read']);
  const before = await scores(t, northKey);
  const admin = async (method: 'PATCH' | 'PUT' | 'POST', path: string, body: unknown, status = 200) => {
    const r = await t.admin(method, path, body);
    assert.equal(r.statusCode, status, r.body);
  };

  // Hide R2: North keeps R1 R3 R5 R6.
  await admin('PATCH', `/reviews/${f.r2.id}`, { is_hidden: true });
  assert.deepEqual(await scores(t, northKey), {
    node_id: tree.regions[0],
    total_reviews: 4,
    // (4.2 + 4 + 3.5) / 3 = 11.7 / 3 = 3.9
    overall_score: 3.9,
    // (84 + 85 + 80 + 52) / 4 = 301 / 4 = 75.25: a tie, rounds up
    overall_score_normalized: 75.3,
    // flagged R1 R6, both recommend
    recommend_rate: 100,
    // replied R1 R5 of 4
    response_rate: 50,
    platform_scores: [
      { platform: 'booking', score: 3.5, score_normalized: 68.5, reviews: 2 },
      { platform: 'google', score: 4.2, score_normalized: 84, reviews: 1 },
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 1 },
    ],
  });

  // Unhide R2: exactly as before.
  await admin('PATCH', `/reviews/${f.r2.id}`, { is_hidden: false });
  assert.deepEqual(await scores(t, northKey), before);

  // Reply to R3: replied R1 R3 R5 of 5 = 60.
  await admin('PUT', `/reviews/${f.r3.id}/reply`, { text: 'Thanks for staying.' });
  const replied = await scores(t, northKey);
  assert.equal(replied.response_rate, 60);
  assert.equal(replied.overall_score, before.overall_score);

  // Update R6 in place (same platform and external id): rating 1.5 (30), does not recommend.
  await admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: p2, platform: 'booking', external_id: 'r6', reviewed_at: f.r6.reviewed_at, rating: 1.5, rating_normalized: 30, recommend: false,
  });
  assert.deepEqual(await scores(t, northKey), {
    node_id: tree.regions[0],
    total_reviews: 5,
    // (4.2 + 4.5 + 4 + 1.5) / 4 = 14.2 / 4 = 3.55: a tie, rounds up
    overall_score: 3.6,
    // (84 + 90 + 85 + 80 + 30) / 5 = 369 / 5 = 73.8
    overall_score_normalized: 73.8,
    // flagged R1 R2 R6, recommending R1: 1 / 3 = 33.33…
    recommend_rate: 33.3,
    // replied R1 R3 R5 of 5
    response_rate: 60,
    platform_scores: [
      // R3 R6: 1.5 / 1; (85 + 30) / 2 = 57.5
      { platform: 'booking', score: 1.5, score_normalized: 57.5, reviews: 2 },
      { platform: 'google', score: 4.4, score_normalized: 87, reviews: 2 },
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 1 },
    ],
  });

  // Unhide R4 (google 1 (20), does not recommend, replied).
  await admin('PATCH', `/reviews/${f.r4.id}`, { is_hidden: false });
  const unhidden = await scores(t, northKey);
  assert.deepEqual(unhidden, {
    node_id: tree.regions[0],
    total_reviews: 6,
    // 15.2 / 5 = 3.04
    overall_score: 3,
    // 389 / 6 = 64.83…
    overall_score_normalized: 64.8,
    // flagged R1 R2 R4 R6, recommending R1: 1 / 4
    recommend_rate: 25,
    // replied R1 R3 R4 R5 of 6: 66.66…
    response_rate: 66.7,
    platform_scores: [
      { platform: 'booking', score: 1.5, score_normalized: 57.5, reviews: 2 },
      // R1 R2 R4: 9.7 / 3 = 3.233…; (84 + 90 + 20) / 3 = 64.66…
      { platform: 'google', score: 3.2, score_normalized: 64.7, reviews: 3 },
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 1 },
    ],
  });

  // Move R8 (tripadvisor, no ratings, does not recommend) from p3 (South) to p2 (North).
  await admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: p2, platform: 'tripadvisor', external_id: 'r8', reviewed_at: f.r8.reviewed_at, rating: null, recommend: false,
  });
  assert.deepEqual(await scores(t, northKey), {
    ...unhidden,
    total_reviews: 7,
    // flagged R1 R2 R4 R6 R8: 1 / 5
    recommend_rate: 20,
    // 4 of 7: 57.14…
    response_rate: 57.1,
    platform_scores: [
      unhidden.platform_scores[0], unhidden.platform_scores[1],
      { platform: 'tripadvisor', score: 4, score_normalized: 80, reviews: 2 },
    ],
  });
  assert.deepEqual(await scores(t, southKey), {
    node_id: tree.regions[1], total_reviews: 1, overall_score: 5, overall_score_normalized: 100,
    recommend_rate: 100, response_rate: 100,
    platform_scores: [{ platform: 'google', score: 5, score_normalized: 100, reviews: 1 }],
  });

  // Hide R7, the last visible review of South: nothing is counted and no platform is listed.
  await admin('PATCH', `/reviews/${f.r7.id}`, { is_hidden: true });
  assert.deepEqual(await scores(t, southKey), {
    node_id: tree.regions[1], total_reviews: 0, overall_score: null, overall_score_normalized: null,
    recommend_rate: null, response_rate: null, platform_scores: [],
  });
});

eachDatabase('analytics rounds exact decimal ties up although floating point sums fall just below them', async (t) => {
  const tree = await createTree(t);
  const [p1] = tree.properties;
  await createReview(t, tree.accountId, p1, { platform: 'expedia', rating: 0.3 });
  const high = await createReview(t, tree.accountId, p1, { platform: 'expedia', rating: 2.4 });
  const key = await createKey(t, tree.accountId, p1, ['analytics:read']);
  const expected = {
    node_id: p1, total_reviews: 2,
    // (0.3 + 2.4) / 2 = 1.35, a tie; in floating point 0.3 + 2.4 = 2.6999999999999997 and the naive
    // Math.round(1.3499999999999999 × 10) / 10 would give 1.3
    overall_score: 1.4,
    // (6 + 48) / 2 = 27
    overall_score_normalized: 27,
    recommend_rate: null, response_rate: 0,
    platform_scores: [{ platform: 'expedia', score: 1.4, score_normalized: 27, reviews: 2 }],
  };
  assert.deepEqual(await scores(t, key), expected);
  // Taking a review out of the sums and putting it back leaves the same figures.
  assert.equal((await t.admin('PATCH', `/reviews/${high.id}`, { is_hidden: true })).statusCode, 200);
  assert.equal((await scores(t, key)).overall_score, 0.3);
  assert.equal((await t.admin('PATCH', `/reviews/${high.id}`, { is_hidden: false })).statusCode, 200);
  assert.deepEqual(await scores(t, key), expected);
});

eachDatabase('analytics: another account sees only its own (empty) figures; scope, plan and key are enforced', async (t) => {
  const tree = await createTree(t);
  await fixture(t, tree);
  const other = await createTree(t, { name: 'Other' });
  const otherKey = await createKey(t, other.accountId, other.root, ['analytics:read']);
  assert.deepEqual(await scores(t, otherKey), {
    node_id: other.root, total_reviews: 0, overall_score: null, overall_score_normalized: null,
    recommend_rate: null, response_rate: null, platform_scores: [],
  });

  const noScope = await createKey(t, tree.accountId, tree.root, ['reviews:read', 'insights:read', 'surveys:read']);
  const denied = await t.api(noScope, 'GET', '/analytics/scores');
  assert.equal(denied.statusCode, 403);
  assert.match(denied.json().error, /analytics:read/);

  const limited = await createTree(t, { plan_features: ['reviews', 'surveys', 'insights', 'nodes', 'guests', 'webhooks'] });
  const planKey = await createKey(t, limited.accountId, limited.root, ['analytics:read']);
  const noPlan = await t.api(planKey, 'GET', '/analytics/scores');
  assert.equal(noPlan.statusCode, 403);
  assert.match(noPlan.json().error, /plan/);

  const missing = await t.api(null, 'GET', '/analytics/scores');
  assert.equal(missing.statusCode, 401);
  assert.ok(missing.json().error);
});

eachDatabase('concurrent hides, unhides and updates of one review leave the scores exact', async (t) => {
  const tree = await createTree(t);
  const [p1] = tree.properties;
  await createReview(t, tree.accountId, p1, { rating: 5 });
  const r = await createReview(t, tree.accountId, p1, { rating: 3, external_id: 'raced' });
  const key = await createKey(t, tree.accountId, tree.root, ['analytics:read']);
  const update = (rating: number) => t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
    node_id: p1, platform: 'google', external_id: 'raced', reviewed_at: r.reviewed_at, rating,
  });
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => t.admin('PATCH', `/reviews/${r.id}`, { is_hidden: i % 2 === 0 })),
      update(2), update(4),
    ]);
    assert.ok(answers.every((a) => a.statusCode === 200), answers.map((a) => a.body).join('\n'));
  }
  // Settle on a known state: visible, rating 4 (80). Then 5 and 4: 9 / 2 = 4.5; (100 + 80) / 2 = 90.
  assert.equal((await t.admin('PATCH', `/reviews/${r.id}`, { is_hidden: false })).statusCode, 200);
  assert.equal((await update(4)).statusCode, 200);
  const s = await scores(t, key);
  assert.deepEqual({ total: s.total_reviews, score: s.overall_score, normalized: s.overall_score_normalized },
    { total: 2, score: 4.5, normalized: 90 });
});

/** review_monthly_stats as kept by the writes, and as recomputed here from the visible reviews; rows of zeros dropped. */
async function monthlyNowAndRecomputed(t: TestApp) {
  const line = (r: { node_id: string; platform: string; month: string; reviews: number; rating_count: number; rating_sum: number; replied: number;
    recommend_yes: number; stars: number[]; reply_timed: number; reply_seconds: number }) =>
    `${r.node_id}|${r.platform}|${r.month}|${r.reviews}|${r.rating_count}|${r.rating_sum}|${r.replied}|${r.recommend_yes}|${r.stars.join(',')}|${r.reply_timed}|${Math.round(r.reply_seconds)}`;
  const kept = (await t.ctx.db.selectFrom('review_monthly_stats').selectAll().execute()).filter((r) => r.reviews !== 0)
    .map((r) => line({ ...r, rating_sum: Number(r.rating_sum), reply_seconds: Number(r.reply_seconds), stars: [r.stars_1, r.stars_2, r.stars_3, r.stars_4, r.stars_5] })).sort();
  const sums = new Map<string, Parameters<typeof line>[0]>();
  for (const r of await t.ctx.db.selectFrom('reviews').selectAll().where('is_hidden', '=', 0 as never).execute()) {
    const month = r.reviewed_at.slice(0, 7);
    const key = `${r.node_id}|${r.platform}|${month}`;
    const sum = sums.get(key) ?? { node_id: r.node_id, platform: r.platform, month, reviews: 0, rating_count: 0, rating_sum: 0, replied: 0, recommend_yes: 0, stars: [0, 0, 0, 0, 0], reply_timed: 0, reply_seconds: 0 };
    sum.reviews += 1;
    if (r.rating !== null) {
      sum.rating_count += 1;
      sum.rating_sum += r.rating;
      // Half up: 4.5 counts as 5 stars.
      if (Math.floor(r.rating + 0.5) >= 1) sum.stars[Math.floor(r.rating + 0.5) - 1]! += 1;
    }
    if (r.owner_reply !== null) sum.replied += 1;
    if (Number(r.recommend) === 1) sum.recommend_yes += 1;
    if (r.replied_at !== null) {
      sum.reply_timed += 1;
      sum.reply_seconds += (Date.parse(r.replied_at) - Date.parse(r.reviewed_at)) / 1000;
    }
    sums.set(key, sum);
  }
  const recomputed = [...sums.values()].map(line).sort();
  return { kept, recomputed };
}

eachDatabase('the monthly aggregates follow every write: create, a review moved to another month and node, hide, reply, bulk import', async (t) => {
  const tree = await createTree(t);
  const a = await createReview(t, tree.accountId, tree.properties[0], { platform: 'google', rating: 4, reviewed_at: '2026-03-10T10:00:00Z', recommend: true });
  await createReview(t, tree.accountId, tree.properties[0], { platform: 'google', rating: 2, reviewed_at: '2026-03-20T10:00:00Z' });
  await createReview(t, tree.accountId, tree.properties[0], { platform: 'google', rating: 4.5, reviewed_at: '2026-03-21T10:00:00Z', owner_reply: 'Thanks', replied_at: '2026-03-22T16:00:00Z' });
  const c = await createReview(t, tree.accountId, tree.properties[1], { platform: 'booking', rating: 5, reviewed_at: '2026-04-02T10:00:00Z' });
  // The same (platform, external_id) again: the review moves to May and to another hotel.
  assert.equal((await t.admin('POST', `/accounts/${tree.accountId}/reviews`, { node_id: tree.properties[2], platform: 'google', external_id: a.external_id, reviewed_at: '2026-05-01T00:00:00Z', rating: 3 })).statusCode, 200);
  assert.equal((await t.admin('PATCH', `/reviews/${c.id}`, { is_hidden: true })).statusCode, 200);
  assert.equal((await t.admin('PUT', `/reviews/${a.id}/reply`, { text: 'Thank you' })).statusCode, 200);
  const { kept, recomputed } = await monthlyNowAndRecomputed(t);
  assert.deepEqual(kept, recomputed);
  assert.equal(kept.length, 2, kept.join('\n'));
  assert.ok(kept.some((k) => k.includes('|0,1,0,0,1|1|108000')), `March: a 2 and a 4.5 (5 stars), one reply after 30 h: ${kept.join('\n')}`);
});

eachDatabase('the monthly-stars migration backfills the stars and reply times of existing reviews', async (t) => {
  const tree = await createTree(t);
  await createReview(t, tree.accountId, tree.properties[0], { platform: 'google', rating: 4.5, reviewed_at: '2026-03-21T10:00:00Z', owner_reply: 'Thanks', replied_at: '2026-03-22T16:00:00Z' });
  await createReview(t, tree.accountId, tree.properties[0], { platform: 'google', rating: 1, reviewed_at: '2026-03-25T10:00:00Z' });
  await createReview(t, tree.accountId, tree.properties[1], { platform: 'booking', rating: 3, reviewed_at: '2026-04-02T10:00:00Z', is_hidden: true });
  // As a database migrated before it: the columns gone, then the migration run on the rows that exist.
  await monthlyStarsMigration.down(t.ctx.db);
  await monthlyStarsMigration.up(t.ctx.db);
  const { kept, recomputed } = await monthlyNowAndRecomputed(t);
  assert.deepEqual(kept, recomputed);
  assert.ok(kept.some((k) => k.includes('|1,0,0,0,1|1|108000')), kept.join('\n'));
});
