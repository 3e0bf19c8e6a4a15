// The review inbox in a real browser (Debian's chromium through playwright-core), by role and label:
// a manager answers a review from a phone-sized screen, sees the reply in that review's article, the
// public API answers it as owner_reply and the review.replied webhook arrives, hides and unhides it; a user bound to one
// hotel sees only its reviews; axe finds no serious or critical violation on the inbox, Analytics (its
// chart drawn by uPlot), Insights and Surveys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createTestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { launchBrowser } from '../support/browser.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { axeViolations, createUser, PASSWORD, screenshot, signInBrowser } from '../support/dashboard.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

eachDatabase('in a browser: answer a review in the inbox on a phone; its hotel only; axe', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root);
    await createEndpoint(t, key, `${receiver.url}/hooks`, ['review.replied']);
    const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The shower was cold every morning.', rating: 2 });
    await createReview(t, tree.accountId, tree.properties[2], { text: 'Another hotel entirely.', rating: 4 });
    const manager = await createUser(t, tree.accountId, 'manager', tree.properties[0], `manager-${t.dialect}@harbour.example`);

    browser = await launchBrowser();
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    await signInBrowser(page, base, manager.email);
    await page.getByRole('link', { name: 'Reviews' }).first().click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    assert.equal(await page.getByRole('article').count(), 1, 'a manager of one hotel sees its reviews only');
    const article = page.getByRole('article').filter({ hasText: 'The shower was cold every morning.' });
    await article.getByLabel('Reply').fill('We are sorry: the boiler has been replaced.');
    await article.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('article').filter({ hasText: 'We are sorry: the boiler has been replaced.' }).getByRole('heading', { name: 'Your reply' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the inbox scrolls sideways by ${overflow}px on a phone`);
    await screenshot(page, 'dashboard-phone-reviews');

    assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().owner_reply, 'We are sorry: the boiler has been replaced.');
    // Hide shares the reply's form (formaction): it hides the review without sending the text again as a reply.
    await page.getByRole('article').first().getByRole('button', { name: 'Hide' }).click();
    await page.getByRole('article').first().getByRole('button', { name: 'Unhide' }).waitFor();
    assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().is_hidden, true);
    await page.getByRole('article').first().getByRole('button', { name: 'Unhide' }).click();
    await page.getByRole('article').first().getByRole('button', { name: 'Hide' }).waitFor();
    assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().is_hidden, false);
    await receiver.waitFor((r) => r.some((x) => JSON.parse(x.body).type === 'review.replied'), 15_000, 'the review.replied webhook');
    const hook = receiver.requests.map((x) => JSON.parse(x.body)).find((b) => b.type === 'review.replied');
    assert.equal(hook.data.review.id, review.id);

    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 }, storageState: await phone.storageState() });
    const wide = await desktop.newPage();
    const scriptErrors: string[] = [];
    wide.on('pageerror', (error) => scriptErrors.push(error.message));
    await wide.goto(`${base}/reviews`);
    await screenshot(wide, 'dashboard-reviews');
    assert.deepEqual(await axeViolations(browser, desktop, `${base}/reviews`), [], '/reviews');
    assert.deepEqual(await axeViolations(browser, phone, `${base}/reviews`, { width: 375, height: 740 }), [], '/reviews on a phone');
    await wide.goto(`${base}/analytics`);
    await wide.locator('.uplot canvas').first().waitFor();
    await screenshot(wide, 'dashboard-analytics');
    assert.deepEqual(await axeViolations(browser, desktop, `${base}/analytics`), [], '/analytics');
    // A window narrowed (or zoomed to 400 %) after the page loaded: the chart follows, the page does not scroll sideways.
    await wide.setViewportSize({ width: 360, height: 800 });
    await wide.waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, null, { timeout: 10_000 });
    assert.ok(await wide.evaluate(() => document.querySelector('.uplot')!.getBoundingClientRect().width <= window.innerWidth));
    await wide.setViewportSize({ width: 1280, height: 900 });
    // The chart speaks the page's language: in German its legend says Monat and names the month under the cursor in German.
    const german = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'de-DE', storageState: await phone.storageState() });
    const chart = await german.newPage();
    chart.on('pageerror', (error) => scriptErrors.push(error.message));
    await chart.goto(`${base}/analytics`);
    await chart.locator('.uplot canvas').first().waitFor();
    assert.equal(await chart.locator('.u-legend .u-series').first().locator('.u-label').textContent(), 'Monat');
    await chart.locator('.u-over').hover();
    assert.match(String(await chart.locator('.u-legend .u-series').first().locator('.u-value').textContent()),
      /^(Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}$/);
    await german.close();
    // On a touch screen nothing hovers: the legend names the series without values ("--") that only a pointer fills.
    const onPhone = await phone.newPage();
    onPhone.on('pageerror', (error) => scriptErrors.push(error.message));
    await onPhone.goto(`${base}/analytics`);
    await onPhone.locator('.uplot canvas').first().waitFor();
    assert.ok(await onPhone.locator('.u-legend .u-series').count() > 0);
    assert.equal(await onPhone.locator('.u-legend .u-value').count(), 0);
    await onPhone.close();
    await wide.goto(`${base}/insights`);
    await wide.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await screenshot(wide, 'dashboard-insights');
    assert.deepEqual(await axeViolations(browser, desktop, `${base}/insights`), [], '/insights');
    await wide.goto(`${base}/surveys`);
    await wide.getByRole('heading', { name: 'Surveys', level: 1 }).waitFor();
    assert.deepEqual(await axeViolations(browser, desktop, `${base}/surveys`), [], '/surveys');
    for (const path of ['/', '/analytics', '/insights', '/surveys']) {
      assert.deepEqual(await axeViolations(browser, phone, `${base}${path}`, { width: 375, height: 740 }), [], `${path} on a phone`);
    }
    assert.deepEqual(scriptErrors, []);
  } finally {
    await browser?.close();
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV } });

test('in a browser: a refused reply keeps every draft and takes focus; a reload shows the inbox, not the form\'s address', async () => {
  const t = await createTestApp('sqlite');
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const tree = await createTree(t);
    await createReview(t, tree.accountId, tree.properties[0], { text: 'Breakfast was cold.', rating: 2 });
    await createReview(t, tree.accountId, tree.properties[0], { text: 'Lovely view.', rating: 5 });
    const manager = await createUser(t, tree.accountId, 'manager');
    browser = await launchBrowser();
    const page = await browser.newPage();
    await signInBrowser(page, base, manager.email);
    await page.goto(`${base}/reviews`);
    const cold = page.getByRole('article').filter({ hasText: 'Breakfast was cold.' });
    const view = page.getByRole('article').filter({ hasText: 'Lovely view.' });
    await cold.getByLabel('Reply').fill('A draft, half written');
    await view.getByLabel('Reply').fill('   ');
    await view.getByRole('button', { name: 'Send reply' }).click();
    await view.getByText('Please fill this in.').waitFor();
    assert.equal(await cold.getByLabel('Reply').inputValue(), 'A draft, half written', 'the other review\'s draft is kept');
    assert.equal(await view.getByLabel('Reply').getAttribute('aria-invalid'), 'true');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true', null, { timeout: 5000 }); // the refused field takes the focus
    // The page answered POST /reviews/{id}/reply; its history entry is the inbox, so a reload shows it.
    await page.reload();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/reviews');
  } finally {
    await browser?.close();
    await t.close();
  }
});

eachDatabase('in a browser: a reply typed while the session ended is not lost: sign in again, back on the inbox with the text, then saved', async (t) => {
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root);
    const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'The lift was out of order.', rating: 2 });
    const manager = await createUser(t, tree.accountId, 'manager', null, `drafts-${t.dialect}@harbour.example`);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signInBrowser(page, base, manager.email);
    await page.goto(`${base}/reviews?rating_max=2`);
    const draft = 'We are sorry: the lift is repaired since Monday.';
    await page.getByRole('article').filter({ hasText: 'The lift was out of order.' }).getByLabel('Reply').fill(draft);

    // Signed out in another tab while the reply was being typed.
    const other = await context.newPage();
    await other.goto(`${base}/account`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('button', { name: 'Sign in' }).waitFor();

    await page.getByRole('article').filter({ hasText: 'The lift was out of order.' }).getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('You were signed out, or the page was open too long').waitFor();
    await page.getByLabel('Email').fill(manager.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on the inbox, with its filter, and the text typed before is in its field again.
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    assert.match(page.url(), /\/reviews\?rating_max=2$/);
    const article = page.getByRole('article').filter({ hasText: 'The lift was out of order.' });
    assert.equal(await article.getByLabel('Reply').inputValue(), draft);
    await article.getByText('Your reply typed earlier and not yet saved is back.').waitFor();
    assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().owner_reply, null, 'nothing was saved while signed out');

    await article.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('article').filter({ hasText: draft }).getByRole('heading', { name: 'Your reply' }).waitFor();
    assert.equal((await t.api(key, 'GET', `/reviews/${review.id}`)).json().owner_reply, draft);
    // Saved: the browser keeps no copy, and the next visit says nothing of a draft.
    await page.goto(`${base}/reviews`);
    assert.equal(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('repute-draft:')).length), 0);
    assert.equal(await page.getByText('not yet saved is back').count(), 0);
  } finally {
    await browser?.close();
  }
});
