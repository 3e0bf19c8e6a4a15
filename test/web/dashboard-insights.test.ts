// The Insights page (/insights, src/web/dashboard/insights.ts): the heat map and trends come from
// the engine's mentions within the user's reach, a topic's mentions show their review, the
// recommendations are listed, and a topic of another account answers 404.
import assert from 'node:assert/strict';
import { createExtractor } from '../../src/extraction/index.ts';
import { extractDueBatch } from '../../src/modules/insights/extraction.ts';
import { refreshRecommendations } from '../../src/modules/insights/recommendations.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createReview, createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

eachDatabase('insights: heat map, trend, a topic\'s mentions with their review, recommendations, reach', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other group' });
  const day = 86_400_000;
  for (let i = 0; i < 6; i++) {
    await createReview(t, tree.accountId, tree.properties[0], { text: 'The room was dirty.', rating: 2, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
    await createReview(t, tree.accountId, tree.properties[2], { text: 'The pool was wonderful.', rating: 5, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
    await createReview(t, tree.accountId, tree.properties[2], { text: 'The breakfast was awful.', rating: 1, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
  }
  // Two unhappy mentions at Lake Lodge: 100 % negative, but too few to colour like six.
  for (let i = 0; i < 2; i++) await createReview(t, tree.accountId, tree.properties[1], { text: 'The room was dirty.', rating: 2, reviewed_at: new Date(Date.now() - (i + 1) * day).toISOString() });
  const operators = await t.admin('POST', `/accounts/${tree.accountId}/recommendations`, { title: 'Answer every review within a day', body: 'For the whole group.', priority: 'high' });
  assert.equal(operators.statusCode, 201, operators.body);
  const extractor = createExtractor();
  while ((await extractDueBatch({ db: t.ctx.db, extractor, log: { warn: () => {} } })) > 0) { /* read every review */ }
  await refreshRecommendations(t.ctx.db, tree.accountId, new Date());

  const viewer = await createUser(t, tree.accountId, 'viewer', tree.regions[0]);
  const client = await signedIn(t, viewer.email);
  const page = await client.get('/insights');
  assert.equal(page.statusCode, 200);
  const row = /<tr><th scope="row">Harbour Hotel<\/th>([\s\S]*?)<\/tr>/.exec(page.body)?.[1] ?? '';
  assert.match(row, /class="heat-4">100 % negative, 0 % positive \(6\)/);
  const lodge = /<tr><th scope="row">Lake Lodge<\/th>([\s\S]*?)<\/tr>/.exec(page.body)?.[1] ?? '';
  assert.match(lodge, /class="heat-few">100 % negative, 0 % positive \(2\)/);
  assert.match(page.body, /a cell of fewer than 5 mentions is not coloured/);
  assert.ok(!page.body.includes('Beach Resort'), 'a property outside the reach is not shown');
  assert.match(page.body, /Cleanliness at Harbour Hotel/);
  // Recommendations about a hotel outside the reach quote its reviews: not shown; the operator's are.
  assert.match(page.body, /Answer every review within a day/);
  assert.doesNotMatch(page.body, /at Beach Resort/);
  assert.doesNotMatch(page.body, /breakfast was awful/);
  const whole = await (await signedIn(t, (await createUser(t, tree.accountId, 'viewer')).email)).get('/insights');
  assert.match(whole.body, /at Beach Resort/);
  assert.match(whole.body, /Answer every review within a day/);
  assert.ok(whole.body.indexOf('Answer every review within a day') < whole.body.indexOf('Cleanliness at Harbour Hotel'), 'high priority before medium, though older');

  const topics = (await t.ctx.db.selectFrom('topics').select(['id', 'name']).where('account_id', 'is', null).execute());
  const cleanliness = topics.find((x) => x.name === 'Cleanliness')!.id;
  const mentions = await client.get(`/insights?topic=${cleanliness}`);
  assert.equal(mentions.statusCode, 200);
  assert.match(mentions.body, /Mentions of Cleanliness/);
  assert.match(mentions.body, /The room was dirty\./);
  const wellness = topics.find((x) => x.name === 'Wellness')!.id;
  assert.doesNotMatch((await client.get(`/insights?topic=${wellness}`)).body, /pool was wonderful/, 'mentions outside the reach stay out');

  const foreign = await t.admin('POST', `/accounts/${other.accountId}/topics`, { name: 'Theirs' });
  assert.equal((await client.get(`/insights?topic=${foreign.json().id}`)).statusCode, 404);
  assert.equal((await client.get('/insights?topic=nope')).statusCode, 404);
  const german = (await client.get('/insights', { 'accept-language': 'de' })).body;
  assert.match(german, /<h1>Einblicke<\/h1>/);
  // The engine's words in the page's language: a priority, a mention's sentiment.
  assert.match(german, /Priorität: hoch/);
  assert.match(mentions.body, /<strong class="sentiment-negative">negative<\/strong>/);
  const germanMentions = (await client.get(`/insights?topic=${cleanliness}`, { 'accept-language': 'de' })).body;
  assert.match(germanMentions, /<strong class="sentiment-negative">negativ<\/strong>/);
  // The engine's topics too, in the heat map's columns and in the mentions' heading; an account's own category keeps its name.
  assert.match(german, /<a href="\/insights\?topic=[0-9a-f-]+#mentions">Sauberkeit<\/a>/);
  assert.doesNotMatch(german, />Cleanliness</);
  assert.match(germanMentions, /Erwähnungen: Sauberkeit/);
  // A generated recommendation in German, from the figures it was drawn from; the operator's as written; the API's stays English.
  assert.match(german, /Sauberkeit in Harbour Hotel: 100 % der Erwähnungen negativ/);
  assert.match(german, /6 von 6 Erwähnungen von Sauberkeit in Harbour Hotel in den letzten 90 Tagen sind negativ \(100 %\)\. Gäste schrieben: „The room was dirty“/);
  assert.doesNotMatch(german, /of mentions negative|Guests wrote/);
  assert.match(german, /Answer every review within a day/);
  const stored = await t.ctx.db.selectFrom('recommendations').select(['title', 'body']).where('account_id', '=', tree.accountId)
    .where('title', 'like', 'Cleanliness at Harbour Hotel%').executeTakeFirstOrThrow();
  assert.equal(stored.title, 'Cleanliness at Harbour Hotel: 100 % of mentions negative');
  const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  assert.ok(page.body.includes(html(stored.body)), 'the English page says what the API serves');
  const own = await t.admin('POST', `/accounts/${tree.accountId}/topics`, { name: 'Parking' });
  assert.match((await client.get(`/insights?topic=${own.json().id}`, { 'accept-language': 'de' })).body, /Erwähnungen: Parking/);
});
