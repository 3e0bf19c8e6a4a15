// The Analytics page (/analytics, src/web/dashboard/analytics.ts): score per month and platform,
// rating distribution, response rate and time, properties compared, within the user's reach; the
// chart's script and stylesheet come from the package itself.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createReview, createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

eachDatabase('analytics: over time, distribution, responses and the comparison, for the user\'s reach', async (t) => {
  const tree = await createTree(t);
  const now = Date.now();
  const at = (days: number) => new Date(now - days * 86_400_000).toISOString();
  await createReview(t, tree.accountId, tree.properties[0], { rating: 5, platform: 'google', reviewed_at: at(3), owner_reply: 'Thanks', replied_at: at(2) });
  await createReview(t, tree.accountId, tree.properties[0], { rating: 3, platform: 'google', reviewed_at: at(5) });
  await createReview(t, tree.accountId, tree.properties[1], { rating: 4, platform: 'booking', reviewed_at: at(4) });
  await createReview(t, tree.accountId, tree.properties[2], { rating: 1, platform: 'google', reviewed_at: at(4) });
  const viewer = await createUser(t, tree.accountId, 'viewer', tree.regions[0]);
  const client = await signedIn(t, viewer.email);
  const page = await client.get('/analytics');
  assert.equal(page.statusCode, 200);
  // Months named as the chart's axis names them ("Nov 2026"), the month itself machine-readable.
  const month = at(3).slice(0, 7);
  const named = new Intl.DateTimeFormat('en', { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
  assert.match(page.body, new RegExp(`<th scope="row"><time datetime="${month}">${named}</time></th>`));
  assert.match(page.body, /<th scope="row">5 ★<\/th><td><meter[^>]*value="1"/);
  assert.match(page.body, /<th scope="row">1 ★<\/th><td><meter[^>]*value="0"/, 'the other region\'s 1-star review is out of reach');
  assert.match(page.body, /<dd>33.3 %<\/dd>/, 'one of three reviews answered');
  // German writes the decimal comma.
  assert.match((await client.get('/analytics', { 'accept-language': 'de' })).body, /<dd>33,3 %<\/dd>/);
  assert.match(page.body, /<dd>24 h<\/dd>/, 'answered a day after');
  assert.match(page.body, /<th scope="row">Harbour Hotel<\/th><td>4<\/td><td>2<\/td><td>50 %<\/td>/);
  assert.ok(!page.body.includes('Beach Resort'));
  assert.match(page.body, /<script src="\/assets\/uPlot.iife.min.js" defer><\/script>/);
  assert.equal((await client.get('/assets/score-chart.js')).statusCode, 200);
});

eachDatabase('analytics for one property: its score over time, distribution and responses; any id outside the reach is 404', async (t) => {
  const tree = await createTree(t);
  const day = new Date(Date.now() - 86_400_000).toISOString();
  await createReview(t, tree.accountId, tree.properties[0], { rating: 5, platform: 'google', reviewed_at: day, owner_reply: 'Thanks', replied_at: day });
  await createReview(t, tree.accountId, tree.properties[1], { rating: 2, platform: 'booking', reviewed_at: day });
  await createReview(t, tree.accountId, tree.properties[2], { rating: 1, platform: 'google', reviewed_at: day });
  const client = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[0])).email);
  const all = (await client.get('/analytics')).body;
  assert.match(all, /<label for="property">Show for<\/label>/);
  assert.match(all, /<option value="">All properties<\/option>/);
  assert.ok(!all.includes('Beach Resort'), 'a property out of reach is not offered');
  assert.match(all, /<th scope="col">Booking.com<\/th>/, 'platforms by their names');

  const one = await client.get(`/analytics?property=${tree.properties[0]}`);
  assert.equal(one.statusCode, 200);
  assert.match(one.body, /<h2 id="over-time">Score over time by platform at Harbour Hotel \(last 12 months\)<\/h2>/);
  assert.match(one.body, new RegExp(`<option value="${tree.properties[0]}" selected>Harbour Hotel</option>`));
  assert.doesNotMatch(one.body, /<th scope="col">Booking.com<\/th>/, 'Lake Lodge\'s platform is not in Harbour Hotel\'s chart');
  assert.match(one.body, /<th scope="row">2 ★<\/th><td><meter[^>]*value="0"/);
  assert.match(one.body, /<dd>100 %<\/dd>/, 'its one review answered');
  // The comparison still shows every property of the reach.
  assert.match(one.body, /<th scope="row">Lake Lodge<\/th>/);

  for (const id of [tree.properties[2], tree.regions[0], '00000000-0000-4000-8000-000000000000', 'nope']) {
    assert.equal((await client.get(`/analytics?property=${id}`)).statusCode, 404, id);
  }
});
