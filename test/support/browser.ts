// Headless Chromium for the tests that look at a rendered page (the API reference now; dashboards and
// surveys later): playwright-core driving Debian's chromium package (Playwright's own browser
// download cannot work here). No skip when it is missing: the test fails and says how to install it.
// Every visited page leaves a screenshot under test-output/screenshots/ (gitignored).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where Debian's chromium package puts the browser; CHROMIUM_PATH may name another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: browser tests need it (apt-get install -y chromium; .ci/run installs it), or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Root in CI (no sandbox), no GPU, and nothing that phones home.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface Visit {
  page: Page;
  /** Uncaught errors of the page's scripts, in order. */
  errors: string[];
}

/**
 * Opens url in a fresh browser, runs check on the page, and writes a screenshot named `name` (also
 * when the check fails, to see why), then closes the browser.
 */
export async function visitPage(url: string, name: string, check: (visit: Visit) => Promise<void>): Promise<void> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      await check({ page, errors });
    } finally {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name.replace(/[^\w.-]+/g, '-')}.png`), fullPage: true }).catch(() => {});
    }
  } finally {
    await browser.close();
  }
}
