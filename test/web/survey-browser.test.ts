// The guest's side in a real browser (Debian's chromium through playwright-core) on a phone-sized
// viewport: the invitation e-mail arrives at a real SMTP server (sent by the invitations worker),
// the guest opens its survey link, misses a required answer and sees why beside the question,
// answers, submits and sees the thank-you page; the response is in the public API and the webhook
// arrives. Then the e-mail's unsubscribe link: the button, the confirmation, guest.unsubscribed.
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startInvitationsWorker } from '../../src/process/invitations-worker.ts';
import { launchBrowser } from '../support/browser.ts';
import { axeViolations, screenshot } from '../support/dashboard.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';
import { startMailSink } from '../support/mail-sink.ts';
import { startReceiver } from '../support/receiver.ts';
import { DEFINITION } from '../support/surveys.ts';
import { createEndpoint, until, verified, WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

const PHONE = { width: 375, height: 740 };

eachDatabase('in a browser on a phone: the e-mail\'s survey link, a missing answer, submit, the response and its webhook; unsubscribe', async (t) => {
  const sink = await startMailSink();
  const receiver = await startReceiver();
  const deliveries = worker(t);
  let browser: Browser | null = null;
  const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
  const invitations = startInvitationsWorker({ db: t.ctx.db, commits: t.testDb.database.commits, log: t.ctx.log },
    { ...t.config, publicUrl: base, smtpUrl: sink.url, mailDir: null });
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root);
    const { secret } = await createEndpoint(t, key, `${receiver.url}/hooks`, ['survey.response_completed', 'guest.unsubscribed']);
    const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'After your stay', definition: DEFINITION, status: 'published' })).json();
    assert.equal((await t.admin('POST', `/surveys/${survey.id}/invitation-rules`, { node_id: tree.root, delay_hours: 0 })).statusCode, 201);
    const email = `guest-${t.dialect}@browser.example`;
    const pushed = await t.api(key, 'POST', '/guests', {
      email, property_id: tree.properties[2], language_code: 'en', first_name: 'Sam', marketing_consent: true,
      reservation: { external_id: 'B-1', status: 'checked_out', checked_out_at: new Date(Date.now() - 3_600_000).toISOString() },
    });
    assert.equal(pushed.statusCode, 201, pushed.body);
    invitations.wake();
    const [mail] = await sink.waitFor(1);
    assert.equal(mail!.to, email);
    const html = String(mail!.parsed.html);
    const surveyUrl = /href="([^"]+\/s\/[^"]+)"/.exec(html)![1]!;
    const unsubscribeUrl = /href="([^"]+\/u\/[^"]+)"/.exec(html)![1]!;
    assert.ok(surveyUrl.startsWith(`${base}/s/`), surveyUrl);

    browser = await launchBrowser();
    const phone = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await phone.newPage();
    await page.goto(surveyUrl);
    await page.getByRole('heading', { name: 'After your stay', level: 1 }).waitFor();
    // The hotel the guest stayed at is named under the survey's title.
    assert.equal(await page.locator('main p.place').textContent(), 'Beach Resort');
    const nps = page.getByRole('group', { name: 'How likely are you to recommend us?' });
    assert.equal(await nps.getByRole('radio').count(), 11);
    assert.equal(await page.getByRole('group', { name: 'Your room' }).getByRole('radio').count(), 5);
    // On a phone 0–10 sits in two even rows (6 + 5, not 10 alone on a third), each answer a full tap target.
    const boxes = await nps.locator('label.choice').evaluateAll((labels) => labels.map((l) => l.getBoundingClientRect()).map((r) => ({ top: Math.round(r.top), height: r.height })));
    const rows = [...new Set(boxes.map((b) => b.top))].map((top) => boxes.filter((b) => b.top === top).length);
    assert.deepEqual(rows, [6, 5]);
    assert.ok(boxes.every((b) => b.height >= 44), JSON.stringify(boxes));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the survey scrolls sideways by ${overflow}px on a phone`);
    // Question texts are text: the <script> in one is shown, not run.
    await page.getByLabel('Anything else? <script>alert(1)</script>').fill('Lovely sea view & <b>quiet</b> nights');
    await page.getByRole('group', { name: 'What did you like?' }).getByLabel('Food <b>').check();
    await screenshot(page, 'survey-phone');

    // Without the required answer: the page again, the fault beside the question, the text kept.
    await page.getByRole('button', { name: 'Submit' }).click();
    await nps.getByText('Please answer this question.').waitFor();
    // Screen readers hear which answer is missing: the unanswered group's buttons are invalid, the others not.
    assert.deepEqual([...new Set(await nps.getByRole('radio').evaluateAll((inputs) => inputs.map((i) => i.getAttribute('aria-invalid'))))], ['true']);
    assert.equal(await page.getByRole('group', { name: 'Your room' }).locator('[aria-invalid]').count(), 0);
    assert.equal(await page.getByLabel('Anything else? <script>alert(1)</script>').inputValue(), 'Lovely sea view & <b>quiet</b> nights');
    await screenshot(page, 'survey-phone-fault');
    await nps.getByLabel('9', { exact: true }).check();
    await page.getByRole('group', { name: 'Would you stay again?' }).getByLabel('Yes').check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Thank you!' }).waitFor();
    await screenshot(page, 'survey-phone-thanks');

    const [response] = (await t.api(key, 'GET', `/surveys/${survey.id}/responses`)).json().data;
    assert.deepEqual([response.status, response.channel, response.overall_score, response.node_id], ['completed', 'email', 9, tree.properties[2]]);
    const answers = (await t.api(key, 'GET', `/surveys/${survey.id}/responses/${response.id}/answers`)).json().data;
    assert.deepEqual(answers.find((a: any) => a.question_id === 'note').value, 'Lovely sea view & <b>quiet</b> nights');
    assert.deepEqual(answers.find((a: any) => a.question_id === 'liked').value, ['food']);
    await until(async () => receiver.requests.some((r) => verified(secret, r).type === 'survey.response_completed'), 15_000, 'the webhook');
    const event = verified(secret, receiver.requests.find((r) => verified(secret, r).type === 'survey.response_completed')!);
    assert.equal(event.data.response.id, response.id);

    // The link again: thank-you, nothing else to answer.
    await page.goto(surveyUrl);
    await page.getByRole('heading', { name: 'Thank you!' }).waitFor();

    // Unsubscribe from the e-mail's link.
    await page.goto(unsubscribeUrl);
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    await until(async () => receiver.requests.some((r) => verified(secret, r).type === 'guest.unsubscribed'), 15_000, 'guest.unsubscribed');
    const lookup = await t.admin('GET', `/accounts/${tree.accountId}/guests?property_id=${tree.properties[2]}&email=${email}`);
    assert.equal(lookup.json().marketing_consent, 'withdrawn');
    // Reloading the confirmation, or opening the link again, says so: no button offered a second time.
    await page.waitForFunction(() => document.readyState === 'complete');
    await page.reload();
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    await page.goto(unsubscribeUrl);
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Unsubscribe' }).count(), 0);
    assert.equal(receiver.requests.filter((r) => verified(secret, r).type === 'guest.unsubscribed').length, 1);

    // axe on the pages a guest sees, at the phone's size.
    const publicUrl = `${base}/s/public/${survey.id}?node=${tree.properties[2]}`;
    for (const url of [publicUrl, unsubscribeUrl]) assert.deepEqual(await axeViolations(browser, null, url, PHONE), [], url);
  } finally {
    await browser?.close();
    await invitations.stop();
    await deliveries.stop();
    await receiver.close();
    await sink.close();
  }
}, { env: { ...WEBHOOK_ENV } });
