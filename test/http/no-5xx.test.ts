// Robustness: malformed values in every parameter of every registered route (public and admin, the
// routes' own schemas say what there is) never answer 5xx, and every non-2xx is { "error": "…", "code": "…" }.
import { ERROR_CODES, type ErrorCode } from '../../src/http/error-codes.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { RouteEntry } from '../../src/http/route-table.ts';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN, type TestApp } from '../support/app.ts';
import { createKey, createReview, createTree, type Tree } from '../support/factories.ts';
import {
  BAD_AUTHORIZATION, MALFORMED_BODIES, MALFORMED_PATH_VALUES, MALFORMED_QUERY_VALUES, Raw, type Schema,
  fieldPaths, malformedValues, toJson, validValue,
} from './schema-inputs.ts';

const ALL_FEATURES = ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

interface World {
  tree: Tree;
  foreign: Tree;
  key: string;
  /** Ids seen in answers, by the kind of thing (the route's last static segment: surveys, topics…). */
  pool: Map<string, string[]>;
}

const kindOf = (url: string): string => url.split('/').filter((s) => s && !s.startsWith(':')).pop() ?? '';

function remember(world: World, kind: string, value: unknown): void {
  const add = (k: string, id: unknown) => {
    if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/.test(id)) return;
    const list = world.pool.get(k) ?? [];
    if (!list.includes(id)) list.push(id);
    world.pool.set(k, list);
  };
  const walk = (v: unknown, k: string) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, k);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [field, x] of Object.entries(v)) {
      if (field === 'id') add(k, x);
      else if (field.endsWith('_id')) add(field, x);
      else if (field.endsWith('_ids') && Array.isArray(x)) for (const id of x) add(field.slice(0, -1), id);
      else if (typeof x === 'object') walk(x, field === 'data' ? k : field);
    }
  };
  walk(value, kind);
}

/** Ids in a successful JSON answer join the pool. */
function harvest(world: World, route: RouteEntry, r: LightMyRequestResponse): void {
  if (r.statusCode >= 300 || !String(r.headers['content-type']).startsWith('application/json') || r.body === '') return;
  remember(world, kindOf(route.url), JSON.parse(r.body));
}

// Field names whose ids are of another kind than their name says.
const ALIASES: Record<string, string[]> = {
  canonical_label_id: ['topics'], parent_label_id: ['topics'], custom_category_id: ['topics'],
  survey_id: ['surveys'], response_id: ['responses'], endpoint_id: ['webhooks'], review_id: ['reviews'],
};

function idFor(world: World, name: string): string {
  if (/node_id|property_id/.test(name)) return world.tree.properties[0];
  if (name === 'parent_id') return world.tree.regions[0];
  for (const kind of [name, ...(ALIASES[name] ?? [])]) {
    const ids = world.pool.get(kind);
    if (ids?.length) return ids[0]!;
  }
  return randomUUID();
}

interface Call {
  method: string;
  url: string;
  query?: string;
  payload?: string;
  headers?: Record<string, string | undefined>;
}

function authFor(world: World, url: string): Record<string, string> {
  if (url.startsWith('/admin/v1')) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (url.startsWith('/api/v4')) return { authorization: `Bearer ${world.key}` };
  return {};
}

async function send(t: TestApp, world: World, call: Call): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const given = { ...authFor(world, call.url), ...(call.payload !== undefined ? { 'content-type': 'application/json' } : {}), ...call.headers };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) headers[k] = v;
  const url = call.query ? `${call.url}?${call.query}` : call.url;
  return t.app.inject({ method: call.method as InjectOptions['method'], url, headers, ...(call.payload !== undefined ? { payload: call.payload } : {}) });
}

/** The server-rendered pages (src/web/): everything outside the two APIs and the probes. */
const isPage = (url: string): boolean => !/^\/(api\/|admin\/|healthz|readyz)/.test(url);

/** The problem with an answer, or null when it is acceptable. */
function problem(method: string, r: LightMyRequestResponse, url: string): string | null {
  if (r.statusCode >= 500) return `${r.statusCode} ${r.body.slice(0, 300)}`;
  if (r.statusCode < 400 || method === 'HEAD') return null;
  // A page's fault is a page (an HTML error page, or the form shown again with the fault): not JSON.
  // Its paths outside any route (405, 404) still answer the JSON envelope of the app's not-found handler.
  if (isPage(url) && String(r.headers['content-type']).startsWith('text/html')) return null;
  try {
    const body = r.json();
    if (typeof body?.error !== 'string' || body.error === '') return `${r.statusCode} without { error }: ${r.body.slice(0, 200)}`;
    if (Object.keys(body).join() !== 'error,code' || ERROR_CODES[body.code as ErrorCode]?.status !== r.statusCode) {
      return `${r.statusCode} not exactly { error, code } with a listed code of this status: ${r.body.slice(0, 200)}`;
    }
  } catch {
    return `${r.statusCode} not JSON: ${r.body.slice(0, 200)}`;
  }
  return null;
}

// A wildcard (the reference page's static files) is a parameter named '*'.
const paramsOf = (url: string): string[] => [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
const fill = (url: string, values: Record<string, string>): string => url.replace(/:(\w+)|\*/g, (_m, p?: string) => values[p ?? '*'] ?? 'x');
const queryString = (values: Record<string, unknown>): string =>
  Object.entries(values).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

/** Candidate ids for a path parameter: things of the kind named by the segment before it first. */
function candidates(world: World, url: string, param: string): string[] {
  if (param === '*') return ['swagger-ui.css'];
  const segments = url.split('/');
  const kind = segments[segments.indexOf(`:${param}`) - 1] ?? '';
  const own = kind === 'accounts' ? [world.tree.accountId] : world.pool.get(kind) ?? [];
  const rest = [...world.pool.values()].flat();
  return [...new Set([...own, ...rest, world.tree.accountId, ...world.tree.properties])].slice(0, 40);
}

interface Baseline {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  status: number;
}

const bodySchema = (route: RouteEntry): Schema | undefined => route.schema?.body as Schema | undefined;
const querySchema = (route: RouteEntry): Schema | undefined => route.schema?.querystring as Schema | undefined;
const takesBody = (route: RouteEntry): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(route.method);

/** The most accepted request we can build for a route: real ids in the path, a schema-valid body and query. */
async function baseline(t: TestApp, world: World, route: RouteEntry): Promise<Baseline> {
  const query = (validValue(querySchema(route), 'query', (n) => idFor(world, n), false) ?? {}) as Record<string, unknown>;
  const bodies = bodySchema(route)
    ? [validValue(bodySchema(route), 'body', (n) => idFor(world, n), true), validValue(bodySchema(route), 'body', (n) => idFor(world, n), false)]
    : takesBody(route) ? [{}] : [undefined];
  const params: Record<string, string> = {};
  let best: Baseline | null = null;
  for (const body of bodies) {
    for (const p of paramsOf(route.url)) params[p] = candidates(world, route.url, p)[0] ?? randomUUID();
    // Try ids until the route finds its resource (one parameter at a time; the first that is not 404 stays).
    for (const p of paramsOf(route.url)) {
      for (const id of candidates(world, route.url, p)) {
        params[p] = id;
        const r = await send(t, world, { method: route.method, url: fill(route.url, params), query: queryString(query), payload: body === undefined ? undefined : toJson(body) });
        if (r.statusCode !== 404) break;
      }
    }
    const r = await send(t, world, { method: route.method, url: fill(route.url, params), query: queryString(query), payload: body === undefined ? undefined : toJson(body) });
    harvest(world, route, r);
    const candidate = { params: { ...params }, query, body, status: r.statusCode };
    if (best === null || (candidate.status < 300 && best.status >= 300)) best = candidate;
    if (r.statusCode < 300) break;
  }
  return best!;
}

function setAt(body: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  const copy = structuredClone(body) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (node?.[key] === undefined || node[key] === null) return copy;
    node = node[key];
  }
  const last = path[path.length - 1]!;
  if (node === null || typeof node !== 'object') return copy;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/** Every malformed request for one route: path, query, body (whole and per field), headers, methods. */
function* battery(route: RouteEntry, base: Baseline, world: World): Generator<{ label: string; call: Call }> {
  const url = fill(route.url, base.params);
  const query = queryString(base.query);
  const payload = base.body === undefined ? undefined : toJson(base.body);
  const call = (label: string, c: Partial<Call>) => ({ label, call: { method: route.method, url, query, payload, ...c } });

  yield call('baseline', {});
  for (const p of paramsOf(route.url)) {
    for (const v of MALFORMED_PATH_VALUES) yield call(`path ${p} = ${v.label}`, { url: fill(route.url, { ...base.params, [p]: v.raw }) });
    yield call(`path ${p} empty`, { url: fill(route.url, { ...base.params, [p]: '' }) });
    yield call(`path ${p} of another account`, { url: fill(route.url, { ...base.params, [p]: world.foreign.properties[0] }) });
  }
  const declared = Object.keys(querySchema(route)?.properties ?? {});
  for (const name of declared) {
    for (const v of MALFORMED_QUERY_VALUES) yield call(`query ${name} = ${v.label}`, { query: queryString({ ...base.query, [name]: '' }).replace(`${encodeURIComponent(name)}=`, `${encodeURIComponent(name)}=${v.raw}`) });
    yield call(`query ${name} twice`, { query: `${query}&${name}=1&${name}=2` });
  }
  for (const extra of ['unknown=1', '__proto__=x', 'constructor=1', 'a[b]=1', '&&&=&==', 'x='.repeat(2000)]) {
    yield call(`query ${extra.slice(0, 20)}`, { query: query ? `${query}&${extra}` : extra });
  }
  if (takesBody(route)) {
    for (const b of MALFORMED_BODIES) yield call(`body ${b.label}`, { payload: b.payload, headers: { 'content-type': b.contentType } });
    yield call('body omitted', { payload: undefined });
    yield call('body with unknown field', { payload: toJson({ ...(base.body as object), unknown_field: 1 }) });
    for (const field of fieldPaths(bodySchema(route))) {
      const name = field.path.join('.');
      yield call(`body ${name} missing`, { payload: toJson(setAt(base.body, field.path, undefined, true)) });
      for (const v of malformedValues(field.schema)) yield call(`body ${name} = ${v.label}`, { payload: toJson(setAt(base.body, field.path, v.value)) });
      if (/(_id|^id)$/.test(String(field.path[field.path.length - 1]))) {
        for (const [label, id] of [['foreign property', world.foreign.properties[0]], ['foreign root', world.foreign.root], ['account id', world.tree.accountId], ['root', world.tree.root]]) {
          yield call(`body ${name} = ${label}`, { payload: toJson(setAt(base.body, field.path, id)) });
        }
      }
    }
  }
  for (const a of BAD_AUTHORIZATION) yield call(`authorization ${a.label}`, { headers: { authorization: a.value } });
  yield call('x-request-id garbage', { headers: { 'x-request-id': 'bad id\twith spaces' } });
  yield call('HEAD', { method: 'HEAD', payload: undefined });
  yield call('OPTIONS', { method: 'OPTIONS', payload: undefined });
  for (const m of METHODS) if (m !== route.method) yield call(`method ${m}`, { method: m, payload: m === 'GET' ? undefined : payload });
  // A raw 1e400 anywhere the body takes a number.
  if (bodySchema(route)) yield call('body all numbers 1e400', { payload: toJson(JSON.parse(toJson(base.body ?? {}), (_k, v) => (typeof v === 'number' ? new Raw('1e400') : v))) });
}

async function seed(t: TestApp): Promise<World> {
  const tree = await createTree(t);
  const foreign = await createTree(t, { name: 'Other group' });
  const key = await createKey(t, tree.accountId, tree.root);
  const review = await createReview(t, tree.accountId, tree.properties[0], { text: 'Lovely stay', rating: 5 });
  await createReview(t, foreign.accountId, foreign.properties[0]);
  const world: World = { tree, foreign, key, pool: new Map([['reviews', [review.id]], ['accounts', [tree.accountId]]]) };
  return world;
}

async function restorePlan(t: TestApp, world: World): Promise<void> {
  // A battery may have narrowed the account's plan (PATCH /accounts/:id): give the key its reach back.
  await t.admin('PATCH', `/accounts/${world.tree.accountId}`, { plan_features: ALL_FEATURES, webhook_endpoint_limit: 100_000 });
}

eachDatabase('no malformed input to any route answers 5xx; every non-2xx is { error }', async (t, tc) => {
  const world = await seed(t);
  const routes = t.app.routeTable.filter((r) => r.method !== 'HEAD');
  assert.ok(routes.length >= 20, `routes found: ${routes.length}`);
  // Creating routes first, twice, so that later routes find the surveys, responses, topics… they need.
  const creating = routes.filter((r) => r.method === 'POST' || r.method === 'PUT');
  for (let round = 0; round < 2; round++) {
    for (const route of [...creating, ...routes.filter((r) => r.method === 'GET')]) await baseline(t, world, route);
    await restorePlan(t, world);
  }
  const ordered = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE')];
  const all: string[] = [];
  for (const route of ordered) {
    await tc.test(`${route.method} ${route.url}`, async () => {
      const base = await baseline(t, world, route);
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      for (const { label, call } of battery(route, base, world)) {
        const r = await send(t, world, call);
        const wrong = problem(call.method, r, call.url);
        statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
        // What the battery creates becomes material for later routes (DELETE comes last).
        harvest(world, route, r);
        if (wrong) failures.push(`${route.method} ${route.url} [${label}] ${call.method} ${call.url.slice(0, 120)}${call.query ? `?${call.query.slice(0, 80)}` : ''} → ${wrong}`);
      }
      await restorePlan(t, world);
      if (process.env.NO5XX_DEBUG) console.log(route.method, route.url, 'baseline', base.status, JSON.stringify([...statuses].sort()));
      all.push(...failures);
      assert.deepEqual(failures, [], `${failures.length} bad answers:\n${failures.slice(0, 40).join('\n')}`);
    });
  }
  if (all.length) console.log(`no-5xx failures [${t.dialect}]:\n${all.join('\n')}`);
}, { env: { RATE_LIMIT_MAX: '1000000000' } });
