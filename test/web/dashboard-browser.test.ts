// The dashboard in a real browser (Debian's chromium through playwright-core), driven by role and
// label as a person would: sign in, create an API key and use it (200), revoke it (401), create a
// webhook endpoint and see its test delivery's status in the log, a viewer without Settings (403),
// a phone-sized viewport without sideways scrolling, and axe-core on every page (no serious or
// critical violation). Screenshots of each page go to test-output/screenshots/.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { eachDatabase } from '../support/each-database.ts';
import { launchBrowser } from '../support/browser.ts';
import { createReview, createTree } from '../support/factories.ts';
import { axeViolations, createUser, screenshot, signInBrowser } from '../support/dashboard.ts';
import { startReceiver } from '../support/receiver.ts';
import { WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

const whoami = async (base: string, key: string): Promise<number> =>
  (await fetch(`${base}/api/v4/whoami`, { headers: { authorization: `Bearer ${key}` } })).status;

/** Reloads until the locator has text matching `pattern` (the worker delivers in the background). */
async function reloadUntil(page: Page, pattern: RegExp, find: (page: Page) => ReturnType<Page['locator']>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (pattern.test((await find(page).textContent()) ?? '')) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await page.reload();
  }
}

eachDatabase('in a browser: keys, webhooks, roles, a phone and axe on every page', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const tree = await createTree(t);
    const owner = await createUser(t, tree.accountId, 'owner', null, `owner-${t.dialect}@harbour.example`);
    const viewer = await createUser(t, tree.accountId, 'viewer', tree.properties[0], `viewer-${t.dialect}@harbour.example`);
    for (const [rating, platform] of [[5, 'google'], [4, 'google'], [2, 'booking'], [5, 'tripadvisor']] as const) {
      await createReview(t, tree.accountId, tree.properties[0], { rating, platform });
    }
    browser = await launchBrowser();
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    const page = await desktop.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    // Any page without a session goes to the sign-in form, and back after it.
    await page.goto(`${base}/settings/api`);
    assert.match(page.url(), /\/login\?next=%2Fsettings%2Fapi$/);
    await screenshot(page, 'dashboard-login');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The e-mail or the password is wrong.' }).waitFor();
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/settings/api');

    // Settings → API: create a key, use it, revoke it.
    await page.getByLabel('Name', { exact: true }).fill('BI export');
    await page.getByLabel('Node', { exact: true }).selectOption({ label: 'North' });
    await page.getByRole('checkbox', { name: 'reviews:read' }).check();
    await page.getByRole('checkbox', { name: 'nodes:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    assert.match(key, /^rpt_/);
    assert.equal(await whoami(base, key), 200);
    // Copy puts the key on the clipboard and says so.
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await clipboard(), key);
    await screenshot(page, 'dashboard-settings-api');
    // Reloading the answer shows the page afresh: no second key is created, and the key is not shown again.
    await page.waitForFunction(() => document.readyState === 'complete');
    await page.reload();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    assert.equal(await page.getByTestId('new-api-key').count(), 0);
    assert.equal(await page.getByRole('row').filter({ hasText: 'BI export' }).count(), 1);
    const row = page.getByRole('row').filter({ hasText: 'BI export' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').filter({ hasText: '“BI export” is revoked' }).waitFor();
    assert.equal(await whoami(base, key), 401);

    // Settings → Webhooks: create an endpoint, send a test, see it delivered in the log.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Front desk');
    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page.getByRole('checkbox', { name: 'review.replied' }).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.getByTestId('new-webhook-secret').textContent())!.trim();
    assert.match(secret, /^whsec_/);
    // Copy selects the secret too, for a browser that keeps the clipboard from the page (Ctrl+C then copies it).
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await clipboard(), secret);
    assert.equal(await page.evaluate(() => getSelection()?.toString().trim()), secret);
    const card = page.getByRole('article').filter({ hasText: 'Front desk' });
    await card.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor((r) => r.length === 1, 15_000, 'the test ping');
    await reloadUntil(page, /delivered/, (p) => p.getByRole('article').filter({ hasText: 'Front desk' }).getByRole('row').filter({ hasText: 'ping' }));
    const log = page.getByRole('article').filter({ hasText: 'Front desk' }).getByRole('row').filter({ hasText: 'ping' });
    assert.match((await log.textContent())!, /HTTP 200/);
    await screenshot(page, 'dashboard-settings-webhooks');
    await card.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit: Front desk' }).waitFor();
    await screenshot(page, 'dashboard-settings-webhook-edit');
    const endpointPage = new URL(page.url()).pathname;

    await page.goto(`${base}/`);
    await page.getByRole('definition').filter({ hasText: '4 of 5' }).waitFor();
    for (const [path, name] of [['/', 'dashboard-overview'], ['/settings/users', 'dashboard-settings-users'], ['/account', 'dashboard-account']]) {
      await page.goto(`${base}${path}`);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await screenshot(page, name!);
    }

    // Every page passes axe (serious and critical), signed out and in.
    const pages = ['/', '/account', '/surveys', '/settings/api', '/settings/webhooks', endpointPage, '/settings/users'];
    for (const path of pages) assert.deepEqual(await axeViolations(browser, desktop, `${base}${path}`), [], path);
    assert.deepEqual(await axeViolations(browser, null, `${base}/login`), [], '/login');

    // A viewer bound to one hotel: no Settings link, 403 on Settings, Overview works.
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewerContext.newPage();
    await signInBrowser(viewerPage, base, viewer.email);
    assert.equal(await viewerPage.getByRole('link', { name: 'Settings' }).count(), 0);
    assert.equal(await viewerPage.getByRole('link', { name: 'Overview' }).count(), 1);
    const forbidden = await viewerPage.goto(`${base}/settings/api`);
    assert.equal(forbidden!.status(), 403);
    await viewerPage.getByRole('heading', { name: 'You may not do this' }).waitFor();
    await screenshot(viewerPage, 'dashboard-viewer-403');
    assert.deepEqual(await axeViolations(browser, viewerContext, `${base}/settings/api`), [], '403 page');

    // A phone: everything reachable without sideways scrolling, Sign out on screen.
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, storageState: await desktop.storageState() });
    const phonePage = await phone.newPage();
    for (const path of ['/', '/surveys', '/settings/api', '/settings/webhooks', '/settings/users']) {
      await phonePage.goto(`${base}${path}`);
      const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px on a phone`);
      // Nor does any button hide to the side inside a table that scrolls (a key's Revoke, a user's Remove).
      const buttons = await phonePage.evaluate(() => [...document.querySelectorAll('main button')].map((b) => ({ text: b.textContent?.trim(), right: Math.round(b.getBoundingClientRect().right) })));
      if (path !== '/') assert.ok(buttons.some((b) => /Revoke|Remove|Pause|Create/.test(b.text ?? '')), `${path} lists its buttons`);
      for (const b of buttons) assert.ok(b.right <= 375, `${path}: the button ${b.text} ends at x=${b.right}, off a 375px screen`);
      await phonePage.getByRole('button', { name: 'Sign out' }).isVisible();
      await screenshot(phonePage, `dashboard-phone${path.replace(/\//g, '-')}`);
    }
    // On a phone too, where wide tables scroll inside their own focusable region (the delivery log).
    for (const path of ['/surveys', '/settings/api', '/settings/webhooks', endpointPage, '/settings/users']) {
      assert.deepEqual(await axeViolations(browser, phone, `${base}${path}`, { width: 375, height: 740 }), [], `${path} on a phone`);
    }

    // Sign out ends the session: the settings page asks for sign-in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
    await page.goto(`${base}/settings/api`);
    assert.match(page.url(), /\/login\?next=/);
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV } });
