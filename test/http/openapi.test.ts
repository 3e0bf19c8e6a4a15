// The interface description (/api/v4/openapi.json) and the reference page (/api/v4/docs): a valid
// OpenAPI 3.1 document of exactly the public routes the app registers, and answers that match it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eachDatabase } from '../support/each-database.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { launchBrowser, visitPage } from '../support/browser.ts';

const PREFIX = '/api/v4';

/** Section 4 of api-v4.md: every public path and method the contract has. */
const CONTRACT = [
  'GET /whoami', 'GET /reviews', 'GET /reviews/{id}', 'GET /analytics/scores', 'GET /nodes', 'GET /surveys',
  'GET /surveys/{id}', 'GET /surveys/{id}/responses', 'GET /surveys/{id}/responses/{responseId}/answers',
  'GET /insights/recommendations', 'GET /insights/mentions', 'GET /insights/topics', 'POST /guests',
  'GET /webhooks', 'POST /webhooks', 'PATCH /webhooks/{id}', 'DELETE /webhooks/{id}', 'GET /webhooks/{id}/deliveries',
  'POST /webhooks/{id}/test',
];
/** Additive operations of issue 13 (the contract allows additions). */
const ADDITIVE = ['GET /webhooks/{id}', 'POST /webhooks/{id}/deliveries/{deliveryId}/retry', 'POST /webhooks/{id}/secret/rotate'];

/** The public operations the app has registered, as "METHOD /path/{param}" (docs and the document itself aside). */
function registeredOperations(t: TestApp): string[] {
  return t.app.routeTable
    .filter((r) => r.method !== 'HEAD' && r.url.startsWith(`${PREFIX}/`))
    .filter((r) => !r.url.startsWith(`${PREFIX}/docs`) && r.url !== `${PREFIX}/openapi.json`)
    .map((r) => `${r.method} ${r.url.slice(PREFIX.length).replace(/:(\w+)/g, '{$1}')}`);
}

function documentedOperations(doc: any): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) => Object.keys(item).filter((k) => k !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`));
}

async function openapi(t: TestApp): Promise<any> {
  const r = await t.app.inject({ method: 'GET', url: `${PREFIX}/openapi.json` });
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  return r.json();
}

test('every documented answer says what its status means, and a 429 documents Retry-After', async () => {
  const t = await createTestApp('sqlite');
  try {
    const doc = await openapi(t);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          assert.notEqual(response.description, 'Default Response', `${method} ${path} ${status}`);
          assert.ok(response.description, `${method} ${path} ${status} has no description`);
        }
      }
    }
    const reviews = doc.paths['/reviews'].get.responses;
    assert.equal(reviews['200'].description, 'OK');
    assert.equal(reviews['400'].description, 'Bad Request');
    assert.deepEqual(reviews['429'].headers['Retry-After'], { $ref: '#/components/headers/Retry-After' });
    assert.equal(doc.components.headers['Retry-After'].schema.type, 'integer');
    assert.equal(doc.paths['/guests'].post.responses['201'].description, 'Created');
  } finally {
    await t.close();
  }
});

eachDatabase('GET /api/v4/openapi.json needs no key and passes an OpenAPI 3.1 validator', async (t) => {
  const doc = await openapi(t);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '4.0.0');
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: 'API key' });
  assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  assert.deepEqual(doc.servers, [{ url: PREFIX }]);
  // Every $ref points at a component that exists.
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const ref of new Set(refs)) {
    const [, kind, name] = /#\/components\/(schemas|headers)\/([^"]+)"/.exec(ref) ?? [];
    assert.ok(kind && name && doc.components[kind][name], `dangling ${ref}`);
  }
});

eachDatabase('the document lists exactly the registered public routes, all of them from the contract', async (t) => {
  const doc = await openapi(t);
  const registered = registeredOperations(t).sort();
  const documented = documentedOperations(doc).sort();
  assert.deepEqual(documented, registered);
  for (const core of ['GET /whoami', 'GET /reviews', 'GET /reviews/{id}', 'GET /nodes']) assert.ok(documented.includes(core), core);
  for (const op of documented) assert.ok(CONTRACT.includes(op) || ADDITIVE.includes(op), `${op} is not in section 4 of the API contract nor an additive route`);
  for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /^\/(admin|healthz|readyz|docs|openapi)/);
});

eachDatabase('every documented operation declares its path parameters and a schema for each status', async (t) => {
  const doc = await openapi(t);
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path');
      assert.deepEqual(pathParams.map((p: any) => p.name).sort(), templated, `${where}: path parameters`);
      for (const p of pathParams) assert.equal(p.required, true, `${where}: ${p.name} is required`);
      const statuses = Object.keys(op.responses);
      assert.ok(statuses.some((s) => s.startsWith('2')), `${where}: a 2xx answer`);
      for (const s of ['401', '403', ...(templated.length ? ['404'] : [])]) assert.ok(statuses.includes(s), `${where}: ${s} documented`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        assert.ok(response.content?.['application/json']?.schema, `${where} ${status}: a JSON schema`);
        if (!status.startsWith('2')) {
          // One shared Error component: the envelope.
          assert.deepEqual(response.content['application/json'].schema, { $ref: '#/components/schemas/Error' }, `${where} ${status}`);
          assert.deepEqual(doc.components.schemas.Error.required, ['error'], 'the error envelope');
        }
      }
    }
  }
  for (const limited of [['/reviews', 'get'], ['/guests', 'post'], ['/webhooks/{id}/test', 'post']] as const) {
    const op = doc.paths[limited[0]]?.[limited[1]];
    if (op) assert.ok(op.responses['429'], `${limited[1]} ${limited[0]}: 429 documented`);
  }
});

eachDatabase('no two public schemas share an $id with different content', async (t) => {
  const byId = new Map<string, string>();
  const walk = (node: unknown, where: string): void => {
    if (node === null || typeof node !== 'object') return;
    const id = (node as { $id?: unknown }).$id;
    if (typeof id === 'string') {
      const json = JSON.stringify(node);
      const seen = byId.get(id);
      assert.ok(seen === undefined || seen === json, `$id ${id} has two different schemas (again in ${where})`);
      byId.set(id, json);
    }
    for (const value of Object.values(node)) walk(value, where);
  };
  for (const route of t.app.routeTable) if (route.url.startsWith(PREFIX)) walk(route.schema, `${route.method} ${route.url}`);
  assert.ok(byId.has('Review'));
});

eachDatabase('answers of the core routes match their documented schemas', async (t) => {
  const doc = await openapi(t);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const check = (path: string, status: number, body: unknown) => {
    const pointer = `/paths/${path.replaceAll('/', '~1')}/get/responses/${status}/content/application~1json/schema`;
    const validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
    assert.ok(validate(body), `${path} ${status}: ${JSON.stringify(validate.errors)}`);
  };
  const tree = await createTree(t);
  const review = await createReview(t, tree.accountId, tree.properties[0], { author: 'Ann', rating: 5, owner_reply: 'Thanks' });
  await createReview(t, tree.accountId, tree.properties[1], {});
  const key = await createKey(t, tree.accountId, tree.root);
  const answers: [string, string, number][] = [
    ['/whoami', '/whoami', 200], ['/reviews', '/reviews?limit=1', 200], ['/reviews/{id}', `/reviews/${review.id}`, 200],
    ['/reviews/{id}', '/reviews/nope', 404], ['/nodes', '/nodes', 200],
  ];
  for (const [path, url, status] of answers) {
    const r = await t.api(key, 'GET', url);
    assert.equal(r.statusCode, status, r.body);
    check(path, status, r.json());
  }
  const anonymous = await t.api(null, 'GET', '/reviews');
  check('/reviews', 401, anonymous.json());
});

eachDatabase('GET /api/v4/docs serves the reference page, whose assets load and which reads the same document', async (t) => {
  const doc = await openapi(t);
  for (const page of [`${PREFIX}/docs`, `${PREFIX}/docs/`]) {
    const r = await t.app.inject({ method: 'GET', url: page });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/, 'scripts only from this server, none inline');
    assert.match(csp, /frame-ancestors 'none'/);
    // As on every dashboard page.
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    const assets = [...r.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `http://localhost${page}`).pathname);
    assert.ok(assets.some((a) => a.endsWith('/swagger-initializer.js')), 'the page runs the initializer');
    assert.match(r.body, /<title>Repute API reference<\/title>/);
    assert.doesNotMatch(r.body, /https?:\/\//, 'no asset from elsewhere');
    for (const asset of assets) {
      const a = await t.app.inject({ method: 'GET', url: asset });
      assert.equal(a.statusCode, 200, `${page} → ${asset}`);
    }
  }
  // The initializer points the UI at ./json beside the page: the same document.
  const init = await t.app.inject({ method: 'GET', url: `${PREFIX}/docs/static/swagger-initializer.js` });
  assert.match(init.body, /resolveUrl\('\.\/json'\)/);
  const served = await t.app.inject({ method: 'GET', url: `${PREFIX}/docs/json` });
  assert.deepEqual(served.json(), doc);
});

test('the reference page renders the API in headless Chromium', async () => {
  const t = await createTestApp('sqlite');
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await visitPage(`${address}${PREFIX}/docs`, 'api-docs', async ({ page, errors }) => {
      await page.locator('.swagger-ui .info .title', { hasText: 'Repute API' }).waitFor({ timeout: 20_000 });
      await page.locator('.opblock-summary-path', { hasText: /^\/reviews$/ }).first().waitFor();
      assert.ok(await page.locator('.opblock-summary-path', { hasText: '/webhooks/{id}/deliveries' }).count() > 0);
      assert.deepEqual(errors, []);
      // Repute's own page: its title, no framework top bar or logo.
      assert.equal(await page.title(), 'Repute API reference');
      assert.equal(await page.locator('.topbar').isVisible(), false);
      assert.equal(await page.locator('img[src*="swagger"], img[alt*="Swagger"]').count(), 0);
    });
    // Offline: every request the page makes stays on this server (anything else is aborted and named).
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const outside: string[] = [];
      await page.route('**/*', (route) => {
        if (route.request().url().startsWith(address)) return route.continue();
        outside.push(route.request().url());
        return route.abort();
      });
      // The page's Content-Security-Policy refuses nothing it needs (a refusal is logged as an error).
      const consoleErrors: string[] = [];
      page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
      await page.goto(`${address}${PREFIX}/docs`, { waitUntil: 'networkidle', timeout: 30_000 });
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: 20_000 });
      // "Try it out" reaches this server under that policy: without a key, GET /reviews answers 401.
      const reviews = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path', { hasText: /^\/reviews$/ }) }).first();
      await reviews.locator('.opblock-summary').click();
      await reviews.getByRole('button', { name: 'Try it out' }).click();
      await reviews.getByRole('button', { name: 'Execute' }).click();
      await reviews.locator('.live-responses-table .response-col_status', { hasText: '401' }).waitFor({ timeout: 20_000 });
      assert.deepEqual(consoleErrors.filter((text) => !/status of 401/.test(text)), []);
      assert.deepEqual(outside, []);
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      assert.match(icon ?? '', /favicon\.svg$/);
    } finally {
      await browser.close();
    }
  } finally {
    await t.close();
  }
});
