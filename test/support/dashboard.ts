// Dashboard helpers for tests: users through the admin API, and a signed-in session for app.inject
// (its cookies and the CSRF token of its pages), or for a browser page (signInBrowser).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from './app.ts';
import { SCREENSHOTS } from './browser.ts';

export const PASSWORD = 'correct horse battery staple';

let userCounter = 0;

/** A user of the account through the admin API; the e-mail is unique per call unless given. */
export async function createUser(t: TestApp, accountId: string, role: 'owner' | 'manager' | 'viewer', nodeId: string | null = null, email?: string): Promise<{ id: string; email: string; password: string }> {
  userCounter += 1;
  const address = email ?? `${role}${userCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await t.admin('POST', `/accounts/${accountId}/users`, { email: address, password: PASSWORD, role, ...(nodeId ? { node_id: nodeId } : {}) });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id, email: address, password: PASSWORD };
}

/** Cookies of a response's Set-Cookie headers, merged into a jar (a cleared cookie is removed). */
export function keepCookies(jar: Map<string, string>, res: LightMyRequestResponse): void {
  for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
    if (c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now())) jar.delete(c.name);
    else jar.set(c.name, c.value);
  }
}

/** The value of the first hidden _csrf field of a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the page has a form with a _csrf field');
  return match[1]!;
}

/** A browser-like client of the dashboard over app.inject: a cookie jar, GET and form POSTs. */
export class DashboardClient {
  readonly jar = new Map<string, string>();
  constructor(readonly t: TestApp) {}

  private cookieHeader(): Record<string, string> {
    return this.jar.size === 0 ? {} : { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.t.app.inject({ method: 'GET', url, headers: { ...this.cookieHeader(), ...headers } });
    keepCookies(this.jar, res);
    return res;
  }

  /** A form POST; `fields` values may be lists (checkboxes). */
  async post(url: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const options: InjectOptions = {
      method: 'POST', url, payload: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader(), ...headers },
    };
    const res = await this.t.app.inject(options);
    keepCookies(this.jar, res);
    return res;
  }

  /** A POST of a JSON body, as a script (not a form) might send it. */
  async postJson(url: string, body: unknown): Promise<LightMyRequestResponse> {
    const res = await this.t.app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...this.cookieHeader() } });
    keepCookies(this.jar, res);
    return res;
  }

  /** GETs the page and POSTs a form to `action` with that page's CSRF token. */
  async submit(page: string, action: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.get(page, headers);
    assert.equal(res.statusCode, 200, `GET ${page}: ${res.body.slice(0, 300)}`);
    return this.post(action, { _csrf: csrfOf(res.body), ...fields }, headers);
  }

  async signIn(email: string, password: string = PASSWORD): Promise<LightMyRequestResponse> {
    return this.submit('/login', '/login', { email, password });
  }
}

/** A client signed in as the user (asserts the sign-in worked). */
export async function signedIn(t: TestApp, email: string, password: string = PASSWORD): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  const res = await client.signIn(email, password);
  assert.equal(res.statusCode, 303, res.body.slice(0, 500));
  return client;
}

/** Signs a browser page in through the login form, by label and role, as a person would. */
export async function signInBrowser(page: Page, baseUrl: string, email: string, password: string = PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Writes a full-page screenshot of the page to test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name.replace(/[^\w.-]+/g, '-')}.png`), fullPage: true });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/**
 * Runs axe-core on the page at `url` with the signed-in state of `from` (its cookies) and returns its
 * serious and critical violations. The page's CSP refuses scripts not served by the site, so axe runs
 * in a context of its own with Playwright's bypassCSP (only for this check: every other test keeps the CSP).
 */
export async function axeViolations(browser: Browser, from: BrowserContext | null, url: string, viewport = { width: 1280, height: 900 }): Promise<AxeViolation[]> {
  const context = await browser.newContext({ bypassCSP: true, viewport, ...(from ? { storageState: await from.storageState() } : {}) });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.addScriptTag({ path: AXE });
    const result = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: unknown[] }> }> } }).axe;
      return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    });
    return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  } finally {
    await context.close();
  }
}
