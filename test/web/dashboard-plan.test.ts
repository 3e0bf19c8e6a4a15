// The account's plan on the dashboard (src/web/dashboard/session.ts requireUser's feature, the
// frame's navigation, sessions.ts's scopes): a feature the operator left out of the plan is on no
// page, no form and no key made there, as in the API.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createReview, createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';

eachDatabase('a plan without surveys and webhooks: no link, no page, no form, no key scope; a plan that gains them shows them', async (t) => {
  const tree = await createTree(t, { plan_features: ['reviews', 'analytics', 'insights', 'nodes', 'guests'] });
  const owner = await signedIn(t, (await createUser(t, tree.accountId, 'owner')).email);
  const manager = await signedIn(t, (await createUser(t, tree.accountId, 'manager')).email);

  const home = await owner.get('/');
  assert.equal(home.statusCode, 200);
  assert.doesNotMatch(home.body, /href="\/surveys"/, 'no Surveys in the navigation');
  assert.match(home.body, /href="\/reviews"/);
  const surveys = await owner.get('/surveys');
  assert.equal(surveys.statusCode, 403);
  assert.match(surveys.body, /This account’s plan does not include surveys\. The operator who runs Repute can add it\./);
  // Forms sent anyway (a page kept open from before the change, or made by hand) are refused too.
  const settings = await owner.get('/settings/api');
  assert.equal(settings.statusCode, 200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(settings.body)![1]!;
  assert.equal((await owner.post('/surveys', { _csrf: csrf, node_id: tree.root, language: 'en' })).statusCode, 403);
  assert.equal((await manager.post('/surveys', { _csrf: /name="_csrf" value="([^"]+)"/.exec((await manager.get('/account')).body)![1]!, node_id: tree.root, language: 'en' })).statusCode, 403);
  assert.equal((await t.ctx.db.selectFrom('surveys').select('id').where('account_id', '=', tree.accountId).execute()).length, 0, 'no survey was made');

  assert.doesNotMatch(settings.body, /href="\/settings\/webhooks"/, 'no Webhooks under Settings');
  assert.equal((await owner.get('/settings/webhooks')).statusCode, 403);
  assert.equal((await owner.post('/settings/webhooks', { _csrf: csrf, name: 'Ops', url: 'https://hooks.example.com/x', events: 'review.received' })).statusCode, 403);
  // Settings → API offers the plan's scopes only, and a key asked for with another is refused.
  assert.match(settings.body, /value="reviews:read"/);
  assert.doesNotMatch(settings.body, /value="surveys:read"|value="webhooks:manage"/);
  const refused = await owner.post('/settings/api', { _csrf: csrf, name: 'x', node_id: tree.root, scopes: ['reviews:read', 'webhooks:manage'] });
  assert.equal(refused.statusCode, 400);
  assert.equal((await t.ctx.db.selectFrom('api_keys').select('id').where('account_id', '=', tree.accountId).execute()).length, 0, 'no key was made');

  // In German, what is missing and who can add it.
  const german = await owner.get('/surveys', { 'accept-language': 'de' });
  assert.match(german.body, /Der Tarif dieses Kontos umfasst Umfragen nicht\./);

  // The operator adds surveys to the plan: the link and the page are there at once.
  const patched = await t.admin('PATCH', `/accounts/${tree.accountId}`, { plan_features: ['reviews', 'analytics', 'insights', 'nodes', 'guests', 'surveys'] });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.match((await owner.get('/')).body, /href="\/surveys"/);
  assert.equal((await owner.get('/surveys')).statusCode, 200);
  assert.equal((await owner.get('/settings/webhooks')).statusCode, 403, 'webhooks are still left out');
});

eachDatabase('a plan without reviews, surveys and insights: the overview leaves out their parts', async (t) => {
  const tree = await createTree(t, { plan_features: ['analytics', 'nodes'] });
  await createReview(t, tree.accountId, tree.properties[0], { text: 'The room was dirty.', rating: 1, reviewed_at: new Date().toISOString() });
  const viewer = await signedIn(t, (await createUser(t, tree.accountId, 'viewer')).email);
  const home = await viewer.get('/');
  assert.equal(home.statusCode, 200);
  assert.match(home.body, /<dt>Reviews this month<\/dt><dd>1<\/dd>/, 'the figures stay');
  assert.equal((await viewer.get('/reviews')).statusCode, 403);
  assert.equal((await viewer.get('/insights')).statusCode, 403);
  assert.equal((await viewer.get('/analytics')).statusCode, 200);
  for (const link of ['/reviews', '/insights', '/surveys']) assert.doesNotMatch(home.body, new RegExp(`href="${link}"`), link);
  assert.doesNotMatch(home.body, /NPS|Worst topics|Unanswered negative reviews|The room was dirty/);
});
