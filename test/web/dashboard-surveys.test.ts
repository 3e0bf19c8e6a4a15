// The Surveys page (/surveys, src/web/dashboard/surveys.ts): surveys of the user's reach with
// response counts and NPS, a survey's responses with their answers, never the respondent's e-mail,
// and a survey out of reach answers 404.
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, csrfOf, signedIn } from '../support/dashboard.ts';
import { seedCheckedOutStays } from '../support/surveys.ts';
import { newPlannerState, planInvitations } from '../../src/modules/invitations/planner.ts';

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
    const r = await t.admin('POST', `/surveys/${survey.id}/responses`, { channel: 'email', status: 'completed', node_id: node, respondent_email: 'guest@example.com', overall_score: score, answers: answer(score, text) });
    assert.equal(r.statusCode, 201, r.body);
  }
  const viewer = await createUser(t, tree.accountId, 'viewer', tree.regions[0]);
  const client = await signedIn(t, viewer.email);
  const list = await client.get('/surveys');
  assert.equal(list.statusCode, 200);
  // Three responses in the north region: two promoters, one detractor → NPS 33.
  assert.match(list.body, /Post-stay &lt;survey&gt;<\/a><\/th><td data-label="[^"]+">3<\/td><td data-label="[^"]+">3<\/td><td data-label="[^"]+">33<\/td>/);
  const detail = await client.get(`/surveys?survey=${survey.id}`);
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /Loved the &lt;b&gt;view&lt;\/b&gt;/);
  // Which survey is open, and each response's hotel with its score out of 10.
  assert.match(detail.body, /<tr class="current" aria-current="true"><th scope="row"><a [^>]*>Post-stay &lt;survey&gt;<\/a>/);
  assert.match(detail.body, /<strong>Shown below: Post-stay &lt;survey&gt;<\/strong>/);
  assert.match(detail.body, /<p class="muted">Lake Lodge · Overall score: 3 of 10<\/p>/);
  assert.match(detail.body, /else the ratings’ average put on 0–10 \(4 of 5 is 7\.5\)/, 'what the score is made of');
  assert.equal((detail.body.match(/<p class="muted">Harbour Hotel · Overall score: (10|9) of 10<\/p>/g) ?? []).length, 2);
  assert.ok(!detail.body.includes('guest@example.com'), 'never the respondent\'s e-mail');
  assert.equal((await client.get(`/surveys?survey=${foreign.id}`)).statusCode, 404);
  // A user of the south region: the north's survey is out of reach.
  const south = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[1])).email);
  assert.match((await south.get('/surveys')).body, /No published surveys yet\./);
  assert.equal((await south.get(`/surveys?survey=${survey.id}`)).statusCode, 404);
});

eachDatabase('surveys: answers read as the questions and options say them, in the page\'s language', async (t) => {
  const tree = await createTree(t);
  const definition = { pages: [{ id: 'stay', questions: [
    { id: 'diet', type: 'choice', multiple: true, text: { en: 'What did you eat?', de: 'Was haben Sie gegessen?' },
      options: [{ id: 'vegan_options', text: { en: 'Vegan dishes', de: 'Vegane Gerichte' } }, { id: 'fish', text: { en: 'Fish', de: 'Fisch' } }] },
    { id: 'again', type: 'yes_no', text: { en: 'Would you come again?', de: 'Würden Sie wiederkommen?' } },
    { id: 'room', type: 'rating', scale: 5, text: { en: 'Your room', de: 'Ihr Zimmer' } },
  ] }] };
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'Stay', node_id: tree.root, definition, status: 'published' })).json();
  const r = await t.admin('POST', `/surveys/${survey.id}/responses`, { channel: 'email', status: 'completed', node_id: tree.properties[0], answers: [
    { question_id: 'diet', question_path: 'stay/diet', question_type: 'choice', value: ['vegan_options', 'fish'] },
    { question_id: 'again', question_path: 'stay/again', question_type: 'yes_no', value: true, numeric_value: 1 },
    { question_id: 'room', question_path: 'stay/room', question_type: 'rating', value: 4, numeric_value: 4 },
  ] });
  assert.equal(r.statusCode, 201, r.body);
  const client = await signedIn(t, (await createUser(t, tree.accountId, 'viewer')).email);
  const german = (await client.get(`/surveys?survey=${survey.id}`, { 'accept-language': 'de' })).body;
  assert.match(german, /<th scope="row">Was haben Sie gegessen\?<\/th><td>Vegane Gerichte, Fisch<\/td>/);
  assert.match(german, /<th scope="row">Würden Sie wiederkommen\?<\/th><td>Ja<\/td>/);
  assert.match(german, /<th scope="row">Ihr Zimmer<\/th><td>4 \/ 5<\/td>/, 'a rating with its scale');
  assert.match(german, /<summary>Ihre Fragen \(3\)<\/summary>\s*<ol><li>Was haben Sie gegessen\?<\/li><li>Würden Sie wiederkommen\?<\/li><li>Ihr Zimmer<\/li><\/ol>/, 'what the survey asks');
  assert.match(german, />Abgeschlossen · E-Mail-Einladung · \d{2}\.\d{2}\.\d{4}</);
  assert.ok(!german.includes('vegan_options') && !german.includes('stay/diet'), 'no stored ids');
  const english = (await client.get(`/surveys?survey=${survey.id}`)).body;
  assert.match(english, /<th scope="row">What did you eat\?<\/th><td>Vegan dishes, Fish<\/td>/);
  assert.match(english, />Completed · E-mail invitation · /);
});

eachDatabase('surveys: a manager starts and stops invitations for the reach, sees their states; faults beside the field; a viewer only reads', async (t) => {
  const tree = await createTree(t);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'Post-stay', node_id: tree.regions[0], definition: DEFINITION, status: 'published' })).json();
  const manager = await signedIn(t, (await createUser(t, tree.accountId, 'manager', tree.regions[0])).email);
  const page = `/surveys?survey=${survey.id}`;
  assert.match((await manager.get(page)).body, /No invitation rule is running: no new invitations go out for this survey\./);

  const bad = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[0], delay_hours: '-3', consent: 'granted', max_age_days: '14', cooldown_days: '30' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /aria-invalid="true" aria-describedby="delay_hours-fault"/);
  assert.match(bad.body, /<span class="field-fault" id="delay_hours-fault">Please enter 0 or more\.<\/span>/);
  assert.match(bad.body, /value="-3"/);
  // A reload of that answer (forget-post.js makes its history entry the canonical address) shows the survey's page.
  assert.match(bad.body, new RegExp(`<link rel="canonical" href="/surveys\\?survey=${survey.id}#invitations">`));
  const outside = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[2], delay_hours: '2', consent: 'granted', max_age_days: '14', cooldown_days: '30' });
  assert.equal(outside.statusCode, 400);
  assert.match(outside.body, /id="node_id-fault">Please choose your own part of the account or one below it\.</);

  const made = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[0], delay_hours: '2', consent: 'not_withdrawn', max_age_days: '7', cooldown_days: '0' });
  assert.equal(made.statusCode, 303);
  assert.match((await manager.get(String(made.headers.location).split('#')[0]!)).body, /<p class="notice" role="status" tabindex="-1" autofocus>Invitations are on: /, 'said once started');
  // The same form sent again (a double click, a reload): no second rule, and the page says nothing changed.
  const again = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[0], delay_hours: '2', consent: 'not_withdrawn', max_age_days: '7', cooldown_days: '0' });
  assert.equal(again.statusCode, 303);
  assert.match((await manager.get(String(again.headers.location).split('#')[0]!)).body, /<p class="notice" role="status" tabindex="-1" autofocus>Invitations were already on with these settings/);
  // Other settings on the same hotel would never apply (the older rule decides): refused beside the field.
  const differing = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[0], delay_hours: '24', consent: 'not_withdrawn', max_age_days: '7', cooldown_days: '0' });
  assert.equal(differing.statusCode, 400);
  assert.match(differing.body, /id="node_id-fault">Invitations already go out here with other settings: stop them first/);
  const [rule, ...others] = (await t.admin('GET', `/surveys/${survey.id}/invitation-rules`)).json().data;
  assert.equal(others.length, 0);
  assert.deepEqual([rule.node_id, rule.delay_hours, rule.consent, rule.max_age_days, rule.cooldown_days], [tree.properties[0], 2, 'not_withdrawn', 7, 0]);
  await seedCheckedOutStays(t.ctx.db, tree.accountId, tree.properties[0], 2);
  await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
  const shown = (await manager.get(page)).body;
  assert.match(shown, /<dt>Scheduled<\/dt><dd>2<\/dd>/);
  assert.match(shown, /<th scope="row">Harbour Hotel<\/th><td data-label="[^"]+">2<\/td><td data-label="[^"]+">Guests who have not declined e-mails<\/td>/);

  // A viewer sees the states, not the forms, and may not stop the rule.
  const viewer = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[0])).email);
  const viewed = (await viewer.get(page)).body;
  assert.match(viewed, /<dt>Scheduled<\/dt><dd>2<\/dd>/);
  assert.doesNotMatch(viewed, /Start invitations|>Stop</);
  assert.equal((await viewer.post(`/surveys/${survey.id}/rules/${rule.id}/delete`, { _csrf: csrfOf(viewed) })).statusCode, 403);
  // A manager of the other region does not reach it.
  const south = await signedIn(t, (await createUser(t, tree.accountId, 'manager', tree.regions[1])).email);
  const southPage = await south.get(page);
  assert.equal((await south.post(`/surveys/${survey.id}/rules/${rule.id}/delete`, { _csrf: csrfOf(southPage.body) })).statusCode, 404);

  const stopped = await manager.submit(page, `/surveys/${survey.id}/rules/${rule.id}/delete`, {});
  assert.equal(stopped.statusCode, 303);
  assert.match((await manager.get(String(stopped.headers.location).split('#')[0]!)).body, /<p class="notice" role="status" tabindex="-1" autofocus>Those invitations are stopped: /);
  assert.match((await manager.get(page)).body, /<dt>Not sent<\/dt><dd>2<\/dd>/);
  // Why not, in the page's language (English as the README documents it).
  assert.match((await manager.get(page)).body, /<td data-label="Why not sent">the invitation rule was removed<\/td>/);
  assert.match((await manager.get(page, { 'accept-language': 'de' })).body, />Die Einladungen wurden vorher beendet\.<\/td>/);

  // An owner of the whole account is offered only the survey's node and those below it, where a rule may go.
  const owner = await signedIn(t, (await createUser(t, tree.accountId, 'owner')).email);
  const select = /<select id="rule-node"[^>]*>([\s\S]*?)<\/select>/.exec((await owner.get(page)).body)?.[1] ?? '';
  assert.deepEqual([...select.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]).sort(), [tree.regions[0], tree.properties[0], tree.properties[1]].sort());
  const above = await owner.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.root, delay_hours: '2', consent: 'granted', max_age_days: '14', cooldown_days: '30' });
  assert.equal(above.statusCode, 400);
  assert.match(above.body, /id="node_id-fault">Please choose the survey&#39;s own part of the account or one below it\.</);
});

eachDatabase('surveys: a hotel\'s manager reads the group\'s survey with the hotel\'s responses only, and starts invitations for the hotel', async (t) => {
  const tree = await createTree(t);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'Group post-stay', node_id: tree.root, definition: DEFINITION, status: 'published' })).json();
  for (const [node, score, text] of [[tree.properties[0], 10, 'Harbour was lovely'], [tree.properties[2], 2, 'Beach was loud']] as const) {
    const r = await t.admin('POST', `/surveys/${survey.id}/responses`, { channel: 'email', status: 'completed', node_id: node,
      answers: [{ question_id: 'nps', question_path: 'p1/nps', question_type: 'nps', value: score, numeric_value: score }, { question_id: 'c', question_path: 'p1/c', question_type: 'text', value: text }] });
    assert.equal(r.statusCode, 201, r.body);
  }
  const manager = await signedIn(t, (await createUser(t, tree.accountId, 'manager', tree.properties[0])).email);
  // The survey is the group's; its figures are the hotel's: one response, a promoter.
  assert.match((await manager.get('/surveys')).body, /Group post-stay<\/a><\/th><td data-label="[^"]+">1<\/td><td data-label="[^"]+">1<\/td><td data-label="[^"]+">100<\/td>/);
  const page = `/surveys?survey=${survey.id}`;
  const detail = await manager.get(page);
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /Harbour was lovely/);
  assert.doesNotMatch(detail.body, /Beach was loud/);
  const made = await manager.submit(page, `/surveys/${survey.id}/rules`, { node_id: tree.properties[0], delay_hours: '2', consent: 'granted', max_age_days: '14', cooldown_days: '30' });
  assert.equal(made.statusCode, 303);
  assert.equal((await t.admin('GET', `/surveys/${survey.id}/invitation-rules`)).json().data[0].node_id, tree.properties[0]);
  // The public API keeps its rule: a key bound to the hotel lists surveys owned within its subtree only.
  const key = (await t.admin('POST', `/accounts/${tree.accountId}/api-keys`, { node_id: tree.properties[0], scopes: ['surveys:read'] })).json().key;
  assert.deepEqual((await t.api(key, 'GET', '/surveys')).json().data, []);
  assert.equal((await t.api(key, 'GET', `/surveys/${survey.id}`)).statusCode, 404);
});

// jsqr is CommonJS whose types declare an ES default export: under Node's interop that is `.default`.
const jsQR = jsQRModule.default;

/** The text a QR code in uqr's SVG carries: its modules drawn as pixels, then read by a decoder (jsQR). */
function readQrCode(svg: string): string | null {
  const [width, height] = (/viewBox="0 0 (\d+) (\d+)"/.exec(svg) ?? []).slice(1).map(Number) as [number, number];
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255);
  for (const [, x, y, w, h] of svg.matchAll(/M(\d+),(\d+)h(\d+)v(\d+)h-\d+z/g)) {
    for (let row = Number(y); row < Number(y) + Number(h); row++) {
      for (let col = Number(x); col < Number(x) + Number(w); col++) pixels.fill(0, (row * width + col) * 4, (row * width + col) * 4 + 3);
    }
  }
  return jsQR(pixels, width, height)?.data ?? null;
}

eachDatabase('surveys: a QR code of the public link for each hotel of the reach under the survey, which opens that hotel\'s survey', async (t) => {
  const tree = await createTree(t);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { name: 'In the room', node_id: tree.root, definition: DEFINITION, status: 'published' })).json();
  const viewer = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[0])).email);
  const page = await viewer.get(`/surveys?survey=${survey.id}`);
  assert.match(page.body, /<h2 id="qr-code">QR code for a hotel<\/h2>/);
  // The hotels of the viewer's region only.
  const options = [...page.body.matchAll(/<select id="qr-hotel" name="qr">([\s\S]*?)<\/select>/g)].map((m) => m[1]).join('');
  assert.deepEqual([...options.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]), [tree.properties[0], tree.properties[1]]);

  const chosen = await viewer.get(`/surveys?survey=${survey.id}&qr=${tree.properties[0]}`);
  assert.equal(chosen.statusCode, 200);
  const link = `${t.config.publicUrl}/s/public/${survey.id}?node=${tree.properties[0]}`;
  assert.ok(chosen.body.includes(`<a href="${link.replace(/&/g, '&amp;')}">`), 'the link is shown');
  const image = /<img src="([^"]+)" width="212" height="212" alt="QR code of the survey for Harbour Hotel">/.exec(chosen.body)?.[1]?.replace(/&amp;/g, '&');
  assert.ok(image, chosen.body.slice(chosen.body.indexOf('qr-code'), chosen.body.indexOf('qr-code') + 1500));
  assert.match(chosen.body, /download="QR code Harbour Hotel\.svg"/);

  const svg = await viewer.get(image);
  assert.equal(svg.statusCode, 200);
  assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
  assert.equal(readQrCode(svg.body), link);
  // What a phone opens from it: the survey, about that hotel.
  const opened = await t.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search });
  assert.equal(opened.statusCode, 200);
  assert.match(opened.body, /Harbour Hotel/);

  // A hotel outside the reach, or none: not found.
  assert.equal((await viewer.get(`/surveys?survey=${survey.id}&qr=${tree.properties[2]}`)).statusCode, 404);
  assert.equal((await viewer.get(`/surveys/${survey.id}/qr.svg?node=${tree.properties[2]}`)).statusCode, 404);
  assert.equal((await viewer.get(`/surveys/${survey.id}/qr.svg`)).statusCode, 404);
  // In German.
  assert.match((await viewer.get(`/surveys?survey=${survey.id}`, { 'accept-language': 'de' })).body, /<h2 id="qr-code">QR-Code für ein Hotel<\/h2>/);
});

eachDatabase('surveys: a manager makes a draft of the standard post-stay survey for a hotel and publishes it; faults beside the field; a viewer does not', async (t) => {
  const tree = await createTree(t);
  const manager = await signedIn(t, (await createUser(t, tree.accountId, 'manager', tree.regions[0])).email);
  const page = await manager.get('/surveys');
  assert.match(page.body, /<summary><h2 id="new-survey">New survey<\/h2><\/summary>/);
  // The hotels and groups of the manager's reach only.
  const options = [...(/<select id="new-node"[^>]*>([\s\S]*?)<\/select>/.exec(page.body)?.[1] ?? '').matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]).sort();
  assert.deepEqual(options, [tree.regions[0], tree.properties[0], tree.properties[1]].sort());

  const empty = await manager.submit('/surveys', '/surveys', { name: '  ', node_id: tree.properties[0], primary_language: 'de' });
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /<input type="text" id="new-name" name="name" maxlength="500" value="" aria-invalid="true" aria-describedby="new-name-fault" autofocus>/);
  assert.match(empty.body, /<span class="field-fault" id="new-name-fault">Please fill this in\.<\/span>/);
  assert.match(empty.body, new RegExp(`<option value="${tree.properties[0]}" selected>`), 'the chosen hotel kept');
  const outside = await manager.submit('/surveys', '/surveys', { name: 'Theirs', node_id: tree.properties[2], primary_language: 'en' });
  assert.equal(outside.statusCode, 400);
  assert.match(outside.body, /id="new-node_id-fault">Please choose your own part of the account or one below it\./);

  const made = await manager.submit('/surveys', '/surveys', { name: 'Harbour <after stay>', node_id: tree.properties[0], primary_language: 'de' });
  assert.equal(made.statusCode, 303);
  assert.equal(made.headers.location, '/surveys?done=drafted#drafts');
  const drafted = (await manager.get('/surveys?done=drafted')).body;
  assert.match(drafted, /<p class="notice" role="status" tabindex="-1" autofocus>The draft is made: /);
  assert.match(drafted, /<th scope="row">Harbour &lt;after stay&gt;<\/th><td data-label="Hotel or group">Harbour Hotel<\/td>/);
  assert.match(drafted, /No published surveys yet\./, 'a draft is not among the published');
  const publish = /action="(\/surveys\/[0-9a-f-]{36}\/publish)"/.exec(drafted)?.[1];
  assert.ok(publish);
  // Another region's manager cannot publish it.
  const south = await signedIn(t, (await createUser(t, tree.accountId, 'manager', tree.regions[1])).email);
  assert.equal((await south.submit('/surveys', publish, {})).statusCode, 404);

  const published = await manager.submit('/surveys', publish, {});
  assert.equal(published.statusCode, 303);
  const surveyId = /survey=([0-9a-f-]{36})/.exec(String(published.headers.location))?.[1];
  const detail = (await manager.get(`/surveys?survey=${surveyId}&done=published`)).body;
  assert.match(detail, /The survey is published: /);
  assert.match(detail, /<strong>Shown below: Harbour &lt;after stay&gt;<\/strong>/);
  const survey = await t.ctx.db.selectFrom('surveys').select(['status', 'primary_language', 'node_id']).where('id', '=', surveyId!).executeTakeFirstOrThrow();
  assert.deepEqual([survey.status, survey.primary_language, survey.node_id], ['published', 'de', tree.properties[0]]);
  // Guests answer it in their language: the standard questions are written in five.
  const guestPage = await t.app.inject({ method: 'GET', url: `/s/public/${surveyId}?node=${tree.properties[0]}`, headers: { 'accept-language': 'es' } });
  assert.match(guestPage.body, /<legend>¿Qué probabilidad hay de que nos recomiende a un amigo o colega\?/);

  const viewer = await signedIn(t, (await createUser(t, tree.accountId, 'viewer', tree.regions[0])).email);
  assert.doesNotMatch((await viewer.get('/surveys')).body, /New survey|Drafts/);
  assert.equal((await viewer.submit('/surveys', '/surveys', { name: 'x', node_id: tree.properties[0], primary_language: 'en' })).statusCode, 403);
});
