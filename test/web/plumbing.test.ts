// The pages' shared plumbing (src/web/plugin.ts): security headers and a strict CSP on pages and
// assets, the browser libraries served from the package, escaped output, faults as HTML pages in
// the reader's language, and none of it leaking into the JSON API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { AppError } from '../../src/http/errors.ts';
import { invalid } from '../../src/lib/errors.ts';
import { registerPages } from '../../src/web/plugin.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTestApp, dialects } from '../support/app.ts';

eachDatabase('assets come from the package with security headers; the API keeps its own answers', async (t) => {
  const css = await t.app.inject({ method: 'GET', url: '/assets/app.css' });
  assert.equal(css.statusCode, 200);
  assert.match(String(css.headers['content-type']), /text\/css/);
  const csp = String(css.headers['content-security-policy']);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(css.headers['x-frame-options'], 'DENY');
  assert.equal(css.headers['referrer-policy'], 'no-referrer');

  for (const file of ['htmx.min.js', 'uPlot.iife.min.js', 'uPlot.min.css', 'favicon.svg', 'forget-post.js']) {
    const res = await t.app.inject({ method: 'GET', url: `/assets/${file}` });
    assert.equal(res.statusCode, 200, file);
  }

  const api = await t.api(null, 'GET', '/reviews');
  assert.equal(api.statusCode, 401);
  assert.equal(api.headers['content-security-policy'], undefined);
  // A form body is still not a body the API takes.
  const form = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'name=x' });
  assert.equal(form.statusCode, 415);
});

eachDatabase('a browser at an address no page has gets an HTML page with the pages\' headers; the JSON planes and other clients keep the envelope', async (t) => {
  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'de' };
  for (const url of ['/settingz', '/dashboard?x=<b>', '/review']) {
    const res = await t.app.inject({ method: 'GET', url, headers: html });
    assert.equal(res.statusCode, 404, url);
    assert.match(String(res.headers['content-type']), /^text\/html/, url);
    assert.match(res.body, /<h1>Diese Seite gibt es nicht<\/h1>/, url);
    // Why, in the reader's words (not the router's "no route GET …").
    assert.match(res.body, /<p class="fault">Prüfen Sie die Adresse: Vielleicht ist ein Buchstabe falsch oder der Link veraltet\.<\/p>/, url);
    assert.doesNotMatch(res.body, /no route/, url);
    // A way on: the dashboard's start page (which asks to sign in first when needed).
    assert.match(res.body, /<a href="\/">Zum Dashboard<\/a>/, url);
    assert.doesNotMatch(res.body, /<b>/, url);
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, url);
    assert.equal(res.headers['x-frame-options'], 'DENY', url);
  }
  // A file that is not there: 404, not 405 (its route takes GET, and found nothing).
  const missing = await t.app.inject({ method: 'GET', url: '/assets/nope.css' });
  assert.equal(missing.statusCode, 404, missing.body);
  // A form's address opened with GET (the browser's address bar): 405 as a page, Allow kept.
  const logout = await t.app.inject({ method: 'GET', url: '/logout', headers: html });
  assert.equal(logout.statusCode, 405);
  assert.match(String(logout.headers['content-type']), /^text\/html/);
  assert.match(String(logout.headers.allow), /POST/);
  // The JSON planes answer the envelope to a browser too; a client that does not ask for HTML gets it everywhere.
  for (const [url, headers] of [['/api/v4/nope', html], ['/admin/v1/nope', html], ['/settingz', {}], ['/settingz', { accept: 'application/json' }]] as const) {
    const res = await t.app.inject({ method: 'GET', url, headers });
    assert.equal(res.statusCode, 404, url);
    assert.equal(res.json().code, 'not_found', url);
  }
});

test('a page fault is an HTML page in the reader\'s language, its message escaped', async () => {
  const { ctx, close } = await createTestApp(dialects[0]!);
  const app = Fastify();
  try {
    await registerPages(app, ctx, [
      (web) => {
        web.get('/probe', async () => {
          throw invalid('name must not be <script>alert(1)</script>');
        });
        web.get('/s/probe', async () => {
          throw new AppError(503, 'the database is unavailable', {}, 'database_unavailable');
        });
      },
    ]);
    const en = await app.inject({ method: 'GET', url: '/probe' });
    assert.equal(en.statusCode, 400);
    assert.match(String(en.headers['content-type']), /text\/html/);
    assert.match(en.body, /<html lang="en">/);
    assert.match(en.body, /This request is not valid/);
    assert.match(en.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(en.body, /<script>alert/);
    const de = await app.inject({ method: 'GET', url: '/probe', headers: { 'accept-language': 'de-CH,de;q=0.9,en;q=0.5' } });
    assert.match(de.body, /<html lang="de">/);
    assert.match(de.body, /Diese Anfrage ist ungültig/);
    assert.match(de.body, /<a href="\/">Zum Dashboard<\/a>/);
    // A guest on a survey page has no dashboard to go to.
    const guest = await app.inject({ method: 'GET', url: '/s/probe' });
    assert.equal(guest.statusCode, 503);
    assert.match(guest.body, /Please try again in a moment/);
    assert.doesNotMatch(guest.body, /dashboard/i);
  } finally {
    await app.close();
    await close();
  }
});
