// Survey invitations end to end on each database: rules, the planner and sender against a real SMTP
// server (smtp-server, messages parsed with mailparser), the e-mail's parts and headers, the survey
// page and its answers as the public API shows them, unsubscribe, and the conditions that stop one.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree, type Tree } from '../support/factories.ts';
import { type MailSink, startMailSink } from '../support/mail-sink.ts';
import { DEFINITION } from '../support/surveys.ts';
import { createMailer } from '../../src/mail/transport.ts';
import { newPlannerState, planInvitations } from '../../src/modules/invitations/planner.ts';
import { sendDueBatch } from '../../src/modules/invitations/sender.ts';

let sink: MailSink;
before(async () => { sink = await startMailSink(); });
after(async () => { await sink.close(); });


interface World { tree: Tree; key: string; surveyId: string }

async function world(t: TestApp, rule: Record<string, unknown> = {}): Promise<World> {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const survey = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'Post-stay', definition: DEFINITION, status: 'published' });
  assert.equal(survey.statusCode, 201, survey.body);
  const created = await t.admin('POST', `/surveys/${survey.json().id}/invitation-rules`, { node_id: tree.regions[0], delay_hours: 0, ...rule });
  assert.equal(created.statusCode, 201, created.body);
  return { tree, key, surveyId: survey.json().id };
}

const hoursAgo = (h: number): string => new Date(Date.now() - h * 3_600_000).toISOString();

async function checkOut(t: TestApp, w: World, email: string, extra: Record<string, unknown> = {}, stay: Record<string, unknown> = {}) {
  const r = await t.api(w.key, 'POST', '/guests', {
    email, property_id: w.tree.properties[0], language_code: 'de', first_name: 'Anna', marketing_consent: true, ...extra,
    reservation: { external_id: `R-${email}`, status: 'checked_out', checked_out_at: hoursAgo(2), ...stay },
  });
  assert.ok(r.statusCode === 200 || r.statusCode === 201, r.body);
  return r.json();
}

/** One planning pass and sending until nothing is due, as the worker does. */
async function runWorker(t: TestApp, planner = newPlannerState()): Promise<void> {
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  const mailer = createMailer({ smtpUrl: sink.url, mailDir: null })!;
  const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: t.config.publicUrl, mailFrom: t.config.mailFrom, retryScheduleS: [0, 0], log: t.app.log };
  try {
    while ((await sendDueBatch(deps)) > 0) { /* until none is due */ }
  } finally {
    mailer.close();
  }
}

const invitations = async (t: TestApp, surveyId: string) => {
  const r = await t.admin('GET', `/surveys/${surveyId}/invitations`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json().data as any[];
};

const mailsTo = (address: string) => sink.mails.filter((m) => m.to === address);
const linkIn = (text: string, kind: 's' | 'u'): string => {
  const match = new RegExp(`https?://[^\\s>]+/${kind}/([A-Za-z0-9_-]+)`).exec(text);
  assert.ok(match, `no /${kind}/ link in ${text}`);
  return new URL(match[0]).pathname;
};
const countEvents = async (t: TestApp, type: string) =>
  Number((await t.ctx.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('type', '=', type).executeTakeFirstOrThrow()).n);

eachDatabase('invitation rules: created for a published survey and a node below its own, listed, stopped; faults name the field', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other' });
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.regions[0], name: 'S', definition: DEFINITION, status: 'published' })).json();
  const draft = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'D', definition: DEFINITION, status: 'draft' })).json();
  const created = await t.admin('POST', `/surveys/${survey.id}/invitation-rules`, { node_id: tree.properties[0], delay_hours: 0.5 });
  assert.equal(created.statusCode, 201, created.body);
  const rule = created.json();
  assert.deepEqual({ ...rule, id: undefined, created_at: undefined }, {
    id: undefined, created_at: undefined, account_id: tree.accountId, survey_id: survey.id, node_id: tree.properties[0],
    delay_hours: 0.5, consent: 'granted', max_age_days: 14, cooldown_days: 30,
  });
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    [survey.id, { node_id: tree.regions[1], delay_hours: 1 }, 400, /node_id must be the survey's node or a node below it/],
    [survey.id, { node_id: other.root, delay_hours: 1 }, 400, /node_id must be a node of this account/],
    [survey.id, { node_id: tree.root, delay_hours: -1 }, 400, /delay_hours/],
    [survey.id, { node_id: tree.root }, 400, /delay_hours/],
    [survey.id, { node_id: tree.regions[0], delay_hours: 1, consent: 'maybe' }, 400, /consent/],
    [survey.id, { node_id: tree.regions[0], delay_hours: 1, cooldown_days: -2 }, 400, /cooldown_days/],
    // A delay past the stay's maximum age would never send.
    [survey.id, { node_id: tree.regions[0], delay_hours: 48, max_age_days: 1 }, 400, /delay_hours must be at most max_age_days × 24 \(24\)/],
    [draft.id, { node_id: tree.root, delay_hours: 1 }, 409, /draft/],
    ['00000000-0000-7000-8000-000000000000', { node_id: tree.root, delay_hours: 1 }, 404, /survey not found/],
  ];
  for (const [id, body, status, message] of cases) {
    const r = await t.admin('POST', `/surveys/${id}/invitation-rules`, body);
    assert.equal(r.statusCode, status, `${JSON.stringify(body)}: ${r.body}`);
    assert.match(r.json().error, message);
  }
  assert.deepEqual((await t.admin('GET', `/surveys/${survey.id}/invitation-rules`)).json().data.map((r: any) => r.id), [rule.id]);
  assert.equal((await t.admin('DELETE', `/invitation-rules/${rule.id}`)).statusCode, 200);
  assert.equal((await t.admin('DELETE', `/invitation-rules/${rule.id}`)).statusCode, 404);
  assert.deepEqual((await t.admin('GET', `/surveys/${survey.id}/invitation-rules`)).json().data, []);
});

eachDatabase('a three-letter language code is read as the language it names, never cut to two letters', async (t) => {
  const w = await world(t);
  // ISO 639-2 "ger" is German (cut, "ge" is Georgian); "est" is Estonian (cut, "es" is Spanish): the
  // survey has English and German, so the German reads German and the Estonian the primary, English.
  await checkOut(t, w, `ger-${t.dialect}@example.com`, { language_code: 'ger' });
  await checkOut(t, w, `est-${t.dialect}@example.com`, { language_code: 'est' });
  await runWorker(t);
  const [german] = mailsTo(`ger-${t.dialect}@example.com`);
  const [estonian] = mailsTo(`est-${t.dialect}@example.com`);
  assert.match(german!.raw, /^Content-Language: de\r?$/m);
  assert.match(german!.parsed.subject ?? '', /Wie war Ihr Aufenthalt/);
  assert.match(estonian!.raw, /^Content-Language: en\r?$/m);
});

eachDatabase('a checked-out guest gets one e-mail in their language with both links and one-click headers; answering completes the response once', async (t) => {
  const w = await world(t);
  const email = `anna-${t.dialect}@example.com`;
  const guest = await checkOut(t, w, email);
  await runWorker(t);
  await runWorker(t);
  const [mail, ...more] = mailsTo(email);
  assert.ok(mail, 'an e-mail arrived');
  assert.equal(more.length, 0, 'one e-mail per stay');
  assert.match(mail.parsed.subject ?? '', /Wie war Ihr Aufenthalt im Harbour Hotel\?/);
  assert.match(mail.parsed.text ?? '', /Guten Tag, Anna,/);
  assert.match(String(mail.parsed.html), /<a href="http:\/\/[^"]+\/s\/[A-Za-z0-9_-]{43}"/);
  const surveyPath = linkIn(mail.parsed.text ?? '', 's');
  const unsubscribePath = linkIn(mail.parsed.text ?? '', 'u');
  assert.match(mail.raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
  assert.match(mail.raw, /^Content-Language: de\r?$/m);
  // The HTML part names the unsubscribe link in words (a long address would widen the mail on a phone); the text part gives the address after a signature separator.
  assert.match(String(mail.parsed.html), /Sie möchten diese E-Mails nicht\? <a href="http:\/\/[^"]+\/u\/[A-Za-z0-9_-]{43}"[^>]*>Abbestellen<\/a>/);
  assert.match(mail.parsed.text ?? '', /\n-- \nSie möchten diese E-Mails nicht\? Abbestellen: http:\/\/\S+\/u\/[A-Za-z0-9_-]{43}\n/);
  // Headers as a reader sees them: a long one may be folded onto a second line (RFC 5322).
  const unfolded = mail.raw.replace(/\r\n[ \t]+/g, ' ');
  assert.match(unfolded, new RegExp(`^List-Unsubscribe: <${t.config.publicUrl.replace(/[.]/g, '\\.')}${unsubscribePath}>`, 'm'));
  const [sent] = await invitations(t, w.surveyId);
  assert.equal(sent.status, 'sent');
  assert.equal(sent.state, 'sent');
  assert.equal(sent.guest_id, guest.id);
  assert.equal(sent.language, 'de');
  assert.equal(JSON.stringify(sent).includes(surveyPath.slice(3)), false, 'the token is never listed');

  // Opening the link starts the response (channel email, the stay's property).
  const page = await t.app.inject({ method: 'GET', url: surveyPath });
  assert.equal(page.statusCode, 200);
  assert.match(page.headers['content-security-policy'] as string, /default-src 'self'/);
  assert.match(page.body, /<html lang="de">/);
  assert.match(page.body, /<legend>Wie wahrscheinlich empfehlen Sie uns\?/);
  // A rating says what its ends mean, as the 0–10 question does.
  assert.match(page.body, /<span>1 = sehr schlecht<\/span> <span>5 = ausgezeichnet<\/span>/);
  assert.match(page.body, /Sonst noch etwas\? &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.doesNotMatch(page.body, /<script>alert/);
  let responses = (await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses`)).json().data;
  assert.equal(responses.length, 1);
  assert.deepEqual([responses[0].status, responses[0].channel, responses[0].node_id], ['started', 'email', w.tree.properties[0]]);
  assert.equal((await invitations(t, w.surveyId))[0].state, 'opened');

  // A required answer missing: the page again, the fault beside the question, what was entered kept.
  const missing = await t.app.inject({ method: 'POST', url: surveyPath, payload: 'q.room=4&q.note=Sch%C3%B6n', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(missing.statusCode, 400);
  assert.match(missing.body, /id="q\.nps-fault">Bitte beantworten Sie diese Frage\./);
  assert.match(missing.body, /name="q\.nps" value="0" required aria-invalid="true" autofocus>/, 'the first faulty question takes the focus');
  assert.equal(missing.body.match(/ autofocus/g)?.length, 1);
  assert.match(missing.body, /value="4" checked/);
  assert.match(missing.body, />Schön<\/textarea>/);
  // 5,000 characters as the browser counts them (a line break is one), sent as it sends them (CRLF): not too long.
  const lines = `${'x'.repeat(499)}\r\n`.repeat(10);
  const long = await t.app.inject({ method: 'POST', url: surveyPath, payload: new URLSearchParams({ 'q.note': lines }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.doesNotMatch(long.body, /q\.note-fault/);
  const tooLong = await t.app.inject({ method: 'POST', url: surveyPath, payload: new URLSearchParams({ 'q.note': `${lines}xx` }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.match(tooLong.body, /id="q\.note-fault">Bitte schreiben Sie höchstens 5\.000 Zeichen\./);
  const bad = await t.app.inject({ method: 'POST', url: surveyPath, payload: 'q.nps=11', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /id="q\.nps-fault">Bitte wählen Sie eine der angebotenen Antworten\./);

  const form = 'q.nps=9&q.room=4&q.again=yes&q.liked=spa&q.liked=food&q.note=Sehr+sch%C3%B6n';
  const submit = () => t.app.inject({ method: 'POST', url: surveyPath, payload: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const thanks = await submit();
  assert.equal(thanks.statusCode, 200);
  assert.match(thanks.body, /Vielen Dank!/);
  responses = (await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses`)).json().data;
  assert.deepEqual([responses[0].status, responses[0].overall_score], ['completed', 9]);
  assert.equal(JSON.stringify(responses).includes(email), false, 'no e-mail in the public API');
  const answers = (await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses/${responses[0].id}/answers`)).json().data;
  const byId = Object.fromEntries(answers.map((a: any) => [a.question_id, [a.question_path, a.question_type, a.value, a.numeric_value, a.comment]]));
  assert.deepEqual(byId, {
    nps: ['stay/nps', 'nps', 9, 9, null], room: ['stay/room', 'rating', 4, 4, null], again: ['more/again', 'yes_no', true, 1, null],
    liked: ['more/liked', 'choice', ['spa', 'food'], null, null], note: ['more/note', 'text', 'Sehr schön', null, null],
  });
  assert.equal(await countEvents(t, 'survey.response_completed'), 1);
  assert.equal((await invitations(t, w.surveyId))[0].state, 'answered');

  // The same link later: the thank-you page, nothing changes.
  assert.match((await submit()).body, /Vielen Dank!/);
  assert.match((await t.app.inject({ method: 'GET', url: surveyPath })).body, /Vielen Dank!/);
  assert.equal(await countEvents(t, 'survey.response_completed'), 1);
  assert.equal((await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses/${responses[0].id}/answers`)).json().data.length, 5);
});

eachDatabase('unsubscribe: the page, the one-click POST, guest.unsubscribed once, no e-mail afterwards, a later grant does not override it', async (t) => {
  const w = await world(t, { cooldown_days: 0 });
  const email = `leave-${t.dialect}@example.com`;
  await checkOut(t, w, email);
  await runWorker(t);
  const unsubscribePath = linkIn(mailsTo(email)[0]!.parsed.text ?? '', 'u');
  const page = await t.app.inject({ method: 'GET', url: unsubscribePath, headers: { 'accept-language': 'en' } });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<button type="submit">Abbestellen<\/button>/, 'in the invitation\'s language');
  assert.match(page.body, /<p class="place">Harbour Hotel<\/p>/, 'the hotel whose e-mails these are');
  // RFC 8058's one-click POST, as multipart/form-data (the RFC's form) and URL-encoded alike.
  const boundary = 'one-click-boundary';
  const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
  const done = await t.app.inject({ method: 'POST', url: unsubscribePath, payload: multipart, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  assert.equal(done.statusCode, 200, done.body);
  assert.match(done.body, /Sie haben abbestellt/);
  assert.match(done.body, /<p class="place">Harbour Hotel<\/p>/);
  const oneClick = () => t.app.inject({ method: 'POST', url: unsubscribePath, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal((await oneClick()).statusCode, 200);
  assert.equal(await countEvents(t, 'guest.unsubscribed'), 1);
  // A later push grants consent and checks out a new stay: still withdrawn, no e-mail.
  await checkOut(t, w, email, { marketing_consent: true }, { external_id: 'second-stay' });
  const lookup = await t.admin('GET', `/accounts/${w.tree.accountId}/guests?property_id=${w.tree.properties[0]}&email=${email}`);
  assert.equal(lookup.json().marketing_consent, 'withdrawn');
  await runWorker(t);
  assert.equal(mailsTo(email).length, 1);
  const cancelled = (await invitations(t, w.surveyId)).find((i) => i.status === 'cancelled');
  assert.equal(cancelled?.last_error, 'the guest withdrew consent');

  // Unsubscribed by the hotel (the operator's unsubscribe): the guest's link says so, without the button.
  const other = `hotel-leave-${t.dialect}@example.com`;
  await checkOut(t, w, other, {}, { external_id: 'third-stay' });
  await runWorker(t);
  const otherPath = linkIn(mailsTo(other)[0]!.parsed.text ?? '', 'u');
  assert.equal((await t.admin('POST', `/accounts/${w.tree.accountId}/guests/unsubscribe`, { property_id: w.tree.properties[0], email: other })).statusCode, 200);
  const told = await t.app.inject({ method: 'GET', url: otherPath });
  assert.match(told.body, /Sie haben abbestellt/);
  assert.doesNotMatch(told.body, /<button/);

  // Erased (GDPR) since the e-mail: nothing goes to them any more, and the link says so too.
  const erased = `erased-leave-${t.dialect}@example.com`;
  await checkOut(t, w, erased, {}, { external_id: 'fourth-stay' });
  await runWorker(t);
  const erasedPath = linkIn(mailsTo(erased)[0]!.parsed.text ?? '', 'u');
  assert.equal((await t.admin('POST', `/accounts/${w.tree.accountId}/guests/erase`, { property_id: w.tree.properties[0], email: erased })).statusCode, 200);
  const gone = await t.app.inject({ method: 'GET', url: erasedPath });
  assert.equal(gone.statusCode, 200);
  assert.match(gone.body, /Sie haben abbestellt/);
  assert.doesNotMatch(gone.body, /<button/);
});

eachDatabase('who is not invited: consent as the rule says, cancelled stays, erased guests, the cooldown, old stays; delay waits', async (t) => {
  const w = await world(t);
  const d = t.dialect;
  await checkOut(t, w, `unknown-${d}@who.example`, { marketing_consent: undefined });
  await checkOut(t, w, `cancel-${d}@who.example`);
  await checkOut(t, w, `erase-${d}@who.example`);
  await checkOut(t, w, `twice-${d}@who.example`);
  await checkOut(t, w, `twice-${d}@who.example`, {}, { external_id: 'twice-second' });
  await checkOut(t, w, `old-${d}@who.example`, {}, { checked_out_at: hoursAgo(15 * 24) });
  await checkOut(t, w, `south-${d}@who.example`, { property_id: w.tree.properties[2] });
  await checkOut(t, w, `booked-${d}@who.example`, {}, { status: 'booked' });
  const planner = newPlannerState();
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  // Changes after planning and before sending count.
  await checkOut(t, w, `cancel-${d}@who.example`, {}, { status: 'cancelled' });
  assert.equal((await t.admin('POST', `/accounts/${w.tree.accountId}/guests/erase`, { property_id: w.tree.properties[0], email: `erase-${d}@who.example` })).statusCode, 200);
  await runWorker(t, planner);
  const reasons = Object.fromEntries((await invitations(t, w.surveyId)).map((i) => [i.status === 'sent' ? 'sent' : i.last_error, i.status]));
  assert.deepEqual(Object.keys(reasons).sort(), [
    'sent', 'the guest has not granted consent', 'the guest was invited within the last 30 days', 'the stay is cancelled', 'the stay or the guest was erased',
  ].sort());
  assert.deepEqual(sink.mails.filter((m) => m.to.endsWith(`-${d}@who.example`)).map((m) => m.to), [`twice-${d}@who.example`]);

  // not_withdrawn invites a guest who never said; a delay keeps it scheduled.
  const rules = (await t.admin('GET', `/surveys/${w.surveyId}/invitation-rules`)).json().data;
  await t.admin('DELETE', `/invitation-rules/${rules[0].id}`);
  await t.admin('POST', `/surveys/${w.surveyId}/invitation-rules`, { node_id: w.tree.root, delay_hours: 0, consent: 'not_withdrawn' });
  await checkOut(t, w, `quiet-${d}@who.example`, { marketing_consent: undefined, property_id: w.tree.properties[2] });
  await checkOut(t, w, `later-${d}@who.example`, {}, { checked_out_at: new Date().toISOString(), check_out: null });
  await t.admin('POST', `/surveys/${w.surveyId}/invitation-rules`, { node_id: w.tree.properties[0], delay_hours: 24 });
  await runWorker(t);
  const mine = sink.mails.filter((m) => m.to.endsWith(`-${d}@who.example`)).map((m) => m.to);
  assert.ok(mine.includes(`quiet-${d}@who.example`), 'not_withdrawn invites a guest who never answered');
  assert.ok(!mine.includes(`later-${d}@who.example`), 'the deepest rule (24 h) waits');
  const later = (await invitations(t, w.surveyId)).find((i) => i.status === 'scheduled');
  assert.ok(later && Date.parse(later.send_at) > Date.now() + 23 * 3_600_000);
});

eachDatabase('SMTP refusals: a temporary one is retried with its reason kept, a permanent one fails at once', async (t) => {
  const w = await world(t, { cooldown_days: 0 });
  const email = `retry-${t.dialect}@example.com`;
  const refused = `refused-${t.dialect}@example.com`;
  sink.refuse((i) => (i === 0 ? { code: 451, message: 'try again later' } : undefined));
  await checkOut(t, w, email);
  await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
  const mailer = createMailer({ smtpUrl: sink.url, mailDir: null })!;
  const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: t.config.publicUrl, mailFrom: t.config.mailFrom, retryScheduleS: [0], log: t.app.log };
  try {
    await sendDueBatch(deps);
    let [first] = await invitations(t, w.surveyId);
    assert.equal(first.status, 'scheduled');
    assert.match(first.last_error, /451 try again later/);
    await sendDueBatch(deps);
    [first] = await invitations(t, w.surveyId);
    assert.deepEqual([first.status, first.attempts, first.last_error], ['sent', 2, null]);
    sink.refuse(() => ({ code: 550, message: 'no such mailbox' }));
    await checkOut(t, w, refused);
    await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
    await sendDueBatch(deps);
    const failed = (await invitations(t, w.surveyId)).find((i) => i.status === 'failed');
    assert.match(failed?.last_error ?? '', /550 no such mailbox/);
  } finally {
    sink.refuse(null);
    mailer.close();
  }
  assert.equal(mailsTo(refused).length, 0);
});

eachDatabase('links: an unknown or altered token is a 404 page for GET and POST; the public QR-code survey takes answers without personal data', async (t) => {
  const w = await world(t);
  // Asked for without HTML too (a mail provider's one-click POST), a bad % escape and no path at all included.
  for (const path of ['/s/nope', `/s/${'A'.repeat(43)}`, '/u/nope', `/u/${'A'.repeat(43)}`, '/u/%zz', '/s/%zz', '/u/a/b']) {
    for (const method of ['GET', 'POST'] as const) {
      const r = await t.app.inject({ method, url: path, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(r.statusCode, 404, `${method} ${path}`);
      assert.match(r.body, /This link is not valid/);
    }
  }
  // A link cut short, run on or mangled in a mail client: the same page for a browser, in its language.
  const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'fr-FR,fr;q=0.9' };
  for (const path of [`/s/${'A'.repeat(343)}`, `/u/${'B'.repeat(300)}`, '/s/%00%ff', '/s/', '/u']) {
    const r = await t.app.inject({ method: 'GET', url: path, headers: browser });
    assert.equal(r.statusCode, 404, path);
    assert.match(String(r.headers['content-type']), /^text\/html/, path);
    assert.match(r.body, /<h1>Ce lien n’est pas valide<\/h1>/, path);
    assert.match(String(r.headers['content-security-policy']), /default-src/, `${path}: the pages' security headers`);
  }
  const url = `/s/public/${w.surveyId}?node=${w.tree.properties[1]}`;
  const page = await t.app.inject({ method: 'GET', url, headers: { 'accept-language': 'en-GB,en;q=0.9' } });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<legend>How likely are you to recommend us\?/);
  assert.match(page.body, new RegExp(`action="/s/public/${w.surveyId}\\?node=${w.tree.properties[1]}"`));
  assert.match(page.body, /<p class="place">Lake Lodge<\/p>/, 'the QR code\'s hotel is named');
  assert.equal((await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses`)).json().data.length, 0, 'opening stores nothing');
  const r = await t.app.inject({ method: 'POST', url, payload: 'q.nps=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(r.statusCode, 200);
  const [response] = (await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses`)).json().data;
  assert.deepEqual([response.channel, response.status, response.node_id, response.overall_score], ['qr_code', 'completed', w.tree.properties[1], 3]);
  for (const bad of [`/s/public/${w.surveyId}`, `/s/public/${w.surveyId}?node=${w.tree.regions[0]}`, `/s/public/${w.surveyId}?node=nope`, `/s/public/nope?node=${w.tree.properties[0]}`]) {
    assert.equal((await t.app.inject({ method: 'GET', url: bad })).statusCode, 404, bad);
  }
  // Answers to a made-up survey are a 404 that counts against no limit (a flood of made-up ids filled the limit's store).
  const madeUp = await t.app.inject({ method: 'POST', url: `/s/public/${'x'.repeat(36)}?node=${w.tree.properties[1]}`, payload: 'q.nps=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(madeUp.statusCode, 404);
  assert.equal(madeUp.headers['ratelimit-remaining'], undefined);
  // One address may send 60 answers in 10 minutes (a hotel's guests share its Wi-Fi), then a 429:
  // the form again, with the answers given and when to send them, in the guest's language.
  let last = r;
  for (let i = 1; i <= 60; i++) {
    last = await t.app.inject({ method: 'POST', url, payload: 'q.nps=8', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' } });
    if (last.statusCode !== 200) break;
  }
  assert.equal(last.statusCode, 429);
  assert.match(String(last.headers['retry-after']), /^\d+$/);
  assert.match(last.body, /<p class="fault" role="alert">Aus Ihrem Netzwerk kamen gerade viele Antworten\. Bitte drücken Sie in (10|[1-9]) Min\. erneut auf „Absenden“/);
  assert.match(last.body, /name="q\.nps" value="8" checked/, 'the answer given is kept');
  // A QR code's link that leads nowhere says to scan the code again, not to open an e-mail.
  assert.match((await t.app.inject({ method: 'GET', url: `/s/public/nope?node=${w.tree.properties[0]}`, headers: browser })).body, /scanner à nouveau le code/);
  assert.equal((await t.api(w.key, 'GET', `/surveys/${w.surveyId}/responses?limit=100`)).json().data.length, 60);
});

eachDatabase('a survey of optional questions only: sent with no answer at all, it asks for one instead of completing an empty response', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const definition = { pages: [{ id: 'p1', title: { en: 'Quick' }, questions: [
    { id: 'mood', type: 'yes_no', text: { en: 'Did you enjoy your stay?', de: 'Hat Ihnen Ihr Aufenthalt gefallen?' } },
    { id: 'note', type: 'text', text: { en: 'Anything else?', de: 'Sonst noch etwas?' } },
  ] }] };
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'Quick', definition, status: 'published' })).json();
  const url = `/s/public/${survey.id}?node=${tree.properties[0]}`;
  const form = { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' };
  const empty = await t.app.inject({ method: 'POST', url, payload: 'q.note=%20%20', headers: form });
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /<p class="fault" id="q\.mood-fault">Bitte beantworten Sie vor dem Absenden mindestens eine Frage\.<\/p>/);
  assert.match(empty.body, /name="q\.mood" value="yes"[^>]* aria-invalid="true" autofocus/, 'the first question takes the focus');
  assert.equal((await t.api(key, 'GET', `/surveys/${survey.id}/responses`)).json().data.length, 0, 'no empty response');
  const one = await t.app.inject({ method: 'POST', url, payload: 'q.note=Lovely', headers: form });
  assert.equal(one.statusCode, 200);
  assert.match(one.body, /Vielen Dank!/);
  assert.equal((await t.api(key, 'GET', `/surveys/${survey.id}/responses`)).json().data.length, 1);
});

eachDatabase('a stay moved to another guest before sending invites that guest, in their language; the cooldown and unsubscribe follow them', async (t) => {
  const w = await world(t);
  const d = t.dialect;
  const stay = { external_id: `MOVE-${d}` };
  await checkOut(t, w, `booker-${d}@move.example`, { language_code: 'en', first_name: 'Booker' }, stay);
  const planner = newPlannerState();
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  // The PMS replaces the booker's address with the traveller's: the stay moves to the traveller.
  const traveller = await checkOut(t, w, `traveller-${d}@move.example`, { language_code: 'de', first_name: 'Theresa' }, stay);
  await runWorker(t, planner);
  assert.deepEqual(mailsTo(`booker-${d}@move.example`), [], 'nothing to the booker');
  const [mail] = mailsTo(`traveller-${d}@move.example`);
  assert.ok(mail, 'the traveller is invited');
  assert.match(mail!.parsed.text ?? '', /Theresa/);
  assert.match(mail!.parsed.subject ?? '', /^Wie war Ihr Aufenthalt/, 'in the traveller\'s language');
  const [invitation] = await invitations(t, w.surveyId);
  assert.equal(invitation.guest_id, traveller.id, 'the invitation names the guest it went to');
  // Its unsubscribe link unsubscribes the traveller, not the booker.
  const unsubscribe = linkIn(mail!.parsed.text ?? '', 'u');
  assert.equal((await t.app.inject({ method: 'POST', url: unsubscribe, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode, 200);
  const guests = await t.ctx.db.selectFrom('guests').select(['email', 'unsubscribed_at']).where('email', 'like', `%-${d}@move.example`).execute();
  assert.deepEqual(Object.fromEntries(guests.map((g) => [g.email.split('-')[0], g.unsubscribed_at !== null])), { booker: false, traveller: true });
});

eachDatabase('undone cancellations are undone: a stay checked out again after an extension, and a hotel whose invitations were stopped and started anew', async (t) => {
  const w = await world(t, { delay_hours: 0 });
  const d = t.dialect;
  const planner = newPlannerState();
  // Checked out, then extended before the invitation went out: cancelled for now.
  await checkOut(t, w, `extended-${d}@again.example`);
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  await checkOut(t, w, `extended-${d}@again.example`, {}, { status: 'arrived', checked_out_at: null });
  await runWorker(t, planner);
  assert.equal((await invitations(t, w.surveyId))[0].last_error, 'the stay is arrived');
  // Checked out for good: invited after all, once.
  await checkOut(t, w, `extended-${d}@again.example`, {}, { checked_out_at: hoursAgo(1) });
  await runWorker(t, planner);
  assert.equal(mailsTo(`extended-${d}@again.example`).length, 1);
  let [only] = await invitations(t, w.surveyId);
  assert.deepEqual([only.status, only.attempts], ['sent', 1]);

  // Stop, then start with other settings: the stays still due are invited under the new rule.
  const rules = (await t.admin('GET', `/surveys/${w.surveyId}/invitation-rules`)).json().data;
  await t.admin('DELETE', `/invitation-rules/${rules[0].id}`);
  await t.admin('POST', `/surveys/${w.surveyId}/invitation-rules`, { node_id: w.tree.regions[0], delay_hours: 1 });
  await checkOut(t, w, `waiting-${d}@again.example`, {}, { checked_out_at: new Date().toISOString() });
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  const waiting = (await invitations(t, w.surveyId)).find((i) => i.status === 'scheduled')!;
  const current = (await t.admin('GET', `/surveys/${w.surveyId}/invitation-rules`)).json().data[0];
  assert.equal((await t.admin('DELETE', `/invitation-rules/${current.id}`)).statusCode, 200);
  assert.equal((await invitations(t, w.surveyId)).find((i) => i.id === waiting.id).last_error, 'the invitation rule was removed');
  await t.admin('POST', `/surveys/${w.surveyId}/invitation-rules`, { node_id: w.tree.regions[0], delay_hours: 0 });
  await runWorker(t, planner);
  assert.equal(mailsTo(`waiting-${d}@again.example`).length, 1, 'invited under the new rule');
  [only] = (await invitations(t, w.surveyId)).filter((i) => i.id === waiting.id);
  assert.equal(only.status, 'sent');
  assert.equal(mailsTo(`extended-${d}@again.example`).length, 1, 'a sent invitation is never sent again');
});

eachDatabase('a claim that only waits is no try: after the end moved, the first refusal retries on the first step of the schedule', async (t) => {
  const w = await world(t, { delay_hours: 0 });
  const d = t.dialect;
  const email = `moved-${d}@tries.example`;
  const soon = new Date(Date.now() + 2500).toISOString();
  await checkOut(t, w, email, {}, { checked_out_at: new Date(Date.now() - 1000).toISOString() });
  const planner = newPlannerState();
  await planInvitations(t.ctx.db, t.config.secretKey, planner);
  // The end moves a little later before sending: the claim decides to wait.
  await checkOut(t, w, email, {}, { checked_out_at: soon });
  const mailer = createMailer({ smtpUrl: sink.url, mailDir: null })!;
  const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: t.config.publicUrl, mailFrom: t.config.mailFrom, retryScheduleS: [60, 3600], log: t.app.log };
  try {
    await sendDueBatch(deps);
    let [invitation] = await invitations(t, w.surveyId);
    assert.deepEqual([invitation.status, invitation.attempts], ['scheduled', 0], 'waiting is not a try');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    sink.refuse((i) => (i === 0 ? { code: 451, message: 'greylisted' } : undefined));
    await sendDueBatch(deps);
    [invitation] = await invitations(t, w.surveyId);
    assert.deepEqual([invitation.status, invitation.attempts], ['scheduled', 1]);
    const retryInS = (Date.parse(invitation.send_at) - Date.now()) / 1000;
    assert.ok(retryInS > 30 && retryInS <= 60, `retried on the schedule's first step (60 s), not its second: ${retryInS} s`);
  } finally {
    sink.refuse(null);
    mailer.close();
  }
});

eachDatabase('a survey published without a question invites nobody: an empty page is not sent to guests', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'Empty', definition: { pages: [] }, status: 'published' })).json();
  assert.equal((await t.admin('POST', `/surveys/${survey.id}/invitation-rules`, { node_id: tree.root, delay_hours: 0 })).statusCode, 201);
  const w = { tree, key, surveyId: survey.id };
  await checkOut(t, w, `empty-${t.dialect}@empty.example`);
  await runWorker(t);
  assert.deepEqual(mailsTo(`empty-${t.dialect}@empty.example`), []);
  const [invitation] = await invitations(t, survey.id);
  assert.deepEqual([invitation.status, invitation.last_error, invitation.attempts], ['cancelled', 'the survey has no questions', 0]);
});

eachDatabase('a batch notes its e-mails as sent while it is still sending, so a worker killed mid-batch leaves only the last moment\'s to send again', async (t) => {
  const w = await world(t);
  const d = t.dialect;
  for (let i = 0; i < 10; i++) await checkOut(t, w, `slow-${i}-${d}@notes.example`);
  await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
  const slow = await startMailSink({ delayMs: 400 }); // five connections: two rounds of 400 ms at least
  const mailer = createMailer({ smtpUrl: slow.url, mailDir: null })!;
  const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: t.config.publicUrl, mailFrom: t.config.mailFrom, retryScheduleS: [60], log: t.app.log };
  const sentNow = async () => (await t.ctx.db.selectFrom('survey_invitations').select('id').where('status', '=', 'sent').execute()).length;
  try {
    let done = false;
    const batch = sendDueBatch(deps).finally(() => { done = true; });
    let notedWhileSending = 0;
    while (!done) {
      const noted = await sentNow();
      if (!done) notedWhileSending = Math.max(notedWhileSending, noted);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await batch, 10);
    assert.ok(notedWhileSending > 0 && notedWhileSending < 10, `noted as sent before the batch ended: ${notedWhileSending} of 10`);
    assert.equal(await sentNow(), 10, 'every e-mail noted once the batch ends');
    assert.equal(slow.mails.length, 10);
  } finally {
    mailer.close();
    await slow.close();
  }
});
