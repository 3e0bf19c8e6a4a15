// The overview (/): reviews this month, the score's trend, NPS of the last 90 days, the worst
// topics and the unanswered negative reviews of the user's reach.
import assert from 'node:assert/strict';
import { createExtractor } from '../../src/extraction/index.ts';
import { extractDueBatch } from '../../src/modules/insights/extraction.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createReview, createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

const DEFINITION = { pages: [{ id: 'p1', questions: [{ id: 'nps', type: 'nps', text: { en: 'Recommend us?' } }] }] };

eachDatabase('overview: this month, NPS, worst topics and unanswered negative reviews of the reach', async (t) => {
  const tree = await createTree(t);
  const now = new Date().toISOString();
  for (let i = 0; i < 3; i++) await createReview(t, tree.accountId, tree.properties[0], { text: 'The room was dirty.', rating: 1, reviewed_at: now });
  await createReview(t, tree.accountId, tree.properties[0], { text: 'Lovely stay.', rating: 5, reviewed_at: now, owner_reply: 'Thanks' });
  // Two more complaints about cleanliness (answered), five in all; four about breakfast are too few to judge the topic by.
  for (let i = 0; i < 2; i++) await createReview(t, tree.accountId, tree.properties[0], { text: 'The room was dirty.', rating: 2, reviewed_at: now, owner_reply: 'Sorry' });
  for (let i = 0; i < 4; i++) await createReview(t, tree.accountId, tree.properties[0], { text: 'The breakfast was awful.', rating: 3, reviewed_at: now, owner_reply: 'Sorry' });
  await createReview(t, tree.accountId, tree.properties[2], { text: 'Far away <script>', rating: 1, reviewed_at: now });
  // A hidden one is out of the scores, and waits for no answer.
  await createReview(t, tree.accountId, tree.properties[0], { text: 'A hidden rant.', rating: 1, reviewed_at: now, is_hidden: true });
  const extractor = createExtractor();
  while ((await extractDueBatch({ db: t.ctx.db, extractor, log: { warn: () => {} } })) > 0) { /* read them */ }
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'Stay', node_id: tree.regions[0], definition: DEFINITION, status: 'published' })).json();
  for (const score of [10, 10, 2]) {
    const r = await t.admin('POST', `/surveys/${survey.id}/responses`, { channel: 'email', status: 'completed', node_id: tree.properties[0],
      answers: [{ question_id: 'nps', question_path: 'p1/nps', question_type: 'nps', value: score, numeric_value: score }] });
    assert.equal(r.statusCode, 201, r.body);
  }
  const client = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[0])).email);
  const page = await client.get('/');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<dt>Reviews this month<\/dt><dd>10<\/dd>/);
  assert.match(page.body, /<dt>NPS \(last 90 days\)<\/dt><dd>33<\/dd>/);
  assert.match(page.body, /Overall score, reviews, response and recommend rates: all reviews so far, hidden ones left out\./, 'the period the figures cover');
  assert.match(page.body, />Cleanliness<\/a>: 100 % negative of 5 mentions/);
  assert.doesNotMatch(page.body, />Breakfast<\/a>/, 'four mentions are too few to judge a topic by');
  assert.equal((page.body.match(/The room was dirty\./g) ?? []).length, 3, 'the three unanswered 1-star reviews');
  // Each names its hotel and leads to it in the inbox.
  assert.equal((page.body.match(/<li><a href="\/reviews\?replied=no&amp;rating_max=2#review-[0-9a-f-]{36}">Harbour Hotel · 1★ Google · \d{4}-\d{2}-\d{2}<\/a> <q class="excerpt">The room was dirty\.<\/q><\/li>/g) ?? []).length, 3);
  assert.ok(!page.body.includes('Far away'), 'a review out of reach is not listed');
  assert.ok(!page.body.includes('hidden rant'), 'a hidden review is not listed');
  assert.match(page.body, /href="\/reviews\?replied=no&amp;rating_max=2"/);
  // Figures in the page's language: a German page writes the decimal comma (2 of 3 recommend).
  for (const recommend of [true, true, false]) await createReview(t, tree.accountId, tree.properties[1], { text: 'Fine.', rating: 4, reviewed_at: now, recommend });
  const german = await client.get('/', { 'accept-language': 'de' });
  assert.match(german.body, /<dt>Empfehlungsquote<\/dt><dd>66,7 %<\/dd>/);
});
