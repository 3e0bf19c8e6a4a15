// The Insights heat map in a real browser, on the demo's data (every topic has mentions): moving
// backwards through the topic links with the keyboard, each focused link is in view, not hidden
// under the frozen hotel column (WCAG 2.4.11), on a desktop and on a phone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser } from 'playwright-core';
import { generateDemo } from '../../src/demo/generate.ts';
import { createTestApp } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { signInBrowser } from '../support/dashboard.ts';

test('in a browser: every heat-map topic link that takes the focus is in view, never under the frozen column', async () => {
  const t = await createTestApp('sqlite');
  let browser: Browser | null = null;
  try {
    const demo = await generateDemo(t.testDb.database);
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    browser = await launchBrowser();
    for (const width of [1280, 375]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await signInBrowser(page, base, demo.owner.email, demo.owner.password);
      await page.goto(`${base}/insights`);
      const links = page.locator('table.heatmap thead a');
      const count = await links.count();
      assert.ok(count >= 10, `the demo's heat map has its topics (${count})`);
      await links.nth(count - 1).focus();
      const hidden: string[] = [];
      for (let i = count - 2; i >= 0; i -= 1) {
        await page.keyboard.press('Shift+Tab');
        const seen = await page.evaluate(() => {
          const focused = document.activeElement as HTMLElement;
          const box = focused.getBoundingClientRect();
          const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
          return { name: focused.textContent ?? '', visible: top !== null && (top === focused || focused.contains(top)) };
        });
        if (!seen.visible) hidden.push(seen.name);
      }
      assert.deepEqual(hidden, [], `at ${width} px, focused links hidden under the frozen column`);
      await page.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
