// The Surveys page (/surveys, src/web/dashboard/surveys.ts): surveys of the user's reach with
// response counts and NPS, a survey's responses with their answers, never the respondent's e-mail,
// and a survey out of reach answers 404.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

const DEFINITION = { pages: [{ id: 'p1', questions: [{ id: 'nps', type: 'nps', text: { en: 'Would you recommend us?' } }, { id: 'c', type: 'text', text: { en: 'Anything else?' } }] }] };

eachDatabase('surveys: counts and NPS of the reach, responses with answers, no e-mail, 404 out of reach', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'Post-stay <survey>', node_id: tree.regions[0], definition: DEFINITION, status: 'published' })).json();
  const foreign = (await t.admin('POST', `/accounts/${other.accountId}/surveys`, { name: 'Theirs', node_id: other.root, definition: DEFINITION, status: 'published' })).json();
  const answer = (score: number, text: string) => [
    { question_id: 'nps', question_path: 'p1/nps', question_type: 'nps', value: score, numeric_value: score },
    { question_id: 'c', question_path: 'p1/c', question_type: 'text', value: text },
  ];
  for (const [node, score, text] of [[tree.properties[0], 10, 'Loved the <b>view</b>'], [tree.properties[0], 9, 'Great'], [tree.properties[1], 3, 'Too loud']] as const) {
    const r = await t.admin('POST', `/surveys/${survey.id}/responses`, { channel: 'email', status: 'completed', node_id: node, respondent_email: 'guest@example.com', answers: answer(score, text) });
    assert.equal(r.statusCode, 201, r.body);
  }
  const viewer = await createUser(t, tree.accountId, 'viewer', tree.regions[0]);
  const client = await signedIn(t, viewer.email);
  const list = await client.get('/surveys');
  assert.equal(list.statusCode, 200);
  // Three responses in the north region: two promoters, one detractor → NPS 33.
  assert.match(list.body, /Post-stay &lt;survey&gt;<\/a><\/th><td>3<\/td><td>3<\/td><td>33<\/td>/);
  const detail = await client.get(`/surveys?survey=${survey.id}`);
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /Loved the &lt;b&gt;view&lt;\/b&gt;/);
  assert.ok(!detail.body.includes('guest@example.com'), 'never the respondent\'s e-mail');
  assert.equal((await client.get(`/surveys?survey=${foreign.id}`)).statusCode, 404);
  // A user of the south region: the north's survey is out of reach.
  const south = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[1])).email);
  assert.match((await south.get('/surveys')).body, /No published surveys yet\./);
  assert.equal((await south.get(`/surveys?survey=${survey.id}`)).statusCode, 404);
});
