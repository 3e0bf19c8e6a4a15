// The two OpenAPI documents: the public API's (/api/v4/openapi.json) and the operator plane's
// (/admin/v1/openapi.json, behind the admin token like every admin route). @fastify/swagger builds
// each from the route schemas (operationId, summary, tags, params, bodies, answers); this file is the
// one post-processing step, for what routes do not declare because hooks and the edge answer it:
// every error status an operation can give (one shared Error component), the response headers
// (X-Request-Id always, RateLimit-* where a per-key window applies, Retry-After, Allow), and the
// public document's `webhooks` section: the signed POST of every event type.
import { STATUS_CODES } from 'node:http';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { EVENT_PAYLOADS } from './events/payloads.ts';
import { ErrorBody } from './http/schemas.ts';

export const API_PREFIX = '/api/v4';
export const ADMIN_PREFIX = '/admin/v1';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON, whatever @fastify/swagger typed it as
type Json = Record<string, any>;
type Plane = 'public' | 'admin';

const header = (description: string, schema: Json = { type: 'integer', minimum: 0 }) => ({ description, schema });

/** The headers answers carry, as the hooks really send them (src/app.ts, src/http/rate-limit.ts, src/http/errors.ts). */
const HEADERS: Json = {
  'X-Request-Id': header('The request id: the one sent, when it is a sane token, or a fresh UUID; logs carry it', { type: 'string' }),
  'RateLimit-Limit': header('Requests allowed in the current window'),
  'RateLimit-Remaining': header('Requests left in the current window'),
  'RateLimit-Reset': header('Seconds until the window resets'),
  'Retry-After': header('Seconds to wait before retrying'),
  Allow: header('The methods the path takes', { type: 'string' }),
};
const useHeader = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

const SECURITY: Record<Plane, Json> = {
  public: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key' } },
  admin: { adminToken: { type: 'http', scheme: 'bearer', description: 'REPUTE_ADMIN_TOKEN' } },
};

const TAGS: Record<Plane, { name: string; description: string }[]> = {
  public: [
    { name: 'identity', description: 'The calling key' },
    { name: 'reviews', description: 'Reviews of the key\'s subtree' },
    { name: 'analytics', description: 'Scores per node' },
    { name: 'nodes', description: 'The hierarchy: account, brands, regions, properties' },
    { name: 'surveys', description: 'Surveys, their responses and answers' },
    { name: 'insights', description: 'Topics, mentions and recommendations' },
    { name: 'guests', description: 'Guests and stays pushed by a PMS' },
    { name: 'webhooks', description: 'Outbound endpoints, their deliveries and signing secrets' },
    { name: 'webhook events', description: 'What Repute POSTs to a webhook endpoint (Standard Webhooks signing)' },
  ],
  admin: [{ name: 'admin', description: 'Operator routes: accounts, nodes, keys, data and deliveries of any account' }],
};

/** The @fastify/swagger options of a plane: its routes only, its prefix as the server. */
export function documentOptions(plane: Plane): FastifyDynamicSwaggerOptions {
  const prefix = plane === 'public' ? API_PREFIX : ADMIN_PREFIX;
  return {
    openapi: {
      openapi: '3.1.0',
      info: plane === 'public'
        ? {
          title: 'Repute API', version: '4.0.0',
          description: 'Reviews, surveys, analytics, insights, nodes, guests and webhooks of one account.',
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        }
        : {
          title: 'Repute admin API', version: '1.0.0',
          description: 'The operator plane: present only when REPUTE_ADMIN_TOKEN is set, and guarded by it (this document too).',
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        },
      servers: [{ url: prefix }],
      components: { securitySchemes: SECURITY[plane] },
      security: [{ [Object.keys(SECURITY[plane])[0]!]: [] }],
      tags: TAGS[plane],
    },
    // Components are named by their $id (Review, Node, …) rather than def-0, def-1.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({
      schema: { ...schema, hide: !url.startsWith(prefix) || url.startsWith(`${prefix}/docs`) || url === `${prefix}/openapi.json` } as typeof schema,
      url: url.slice(prefix.length) || '/',
    }),
    transformObject: (document) => ('openapiObject' in document ? completeDocument(document.openapiObject as Json, plane) : document.swaggerObject),
  };
}

/** "POST /accounts/{id}/api-keys" → "postAccountsIdApiKeys": for operations whose route names none. */
function derivedOperationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

function errorResponse(status: number): Json {
  const headers: Json = { 'X-Request-Id': useHeader('X-Request-Id') };
  if (status === 429 || status === 503) headers['Retry-After'] = useHeader('Retry-After');
  if (status === 405) headers.Allow = useHeader('Allow');
  return {
    description: STATUS_CODES[status] ?? String(status),
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** The error statuses an operation can answer, whatever its route declares. */
function errorStatuses(plane: Plane, method: string, path: string, declared: string[]): number[] {
  const statuses = new Set(declared.map(Number).filter((s) => s >= 400));
  statuses.add(400); // validation, and unknown query parameters on every route
  statuses.add(401);
  if (plane === 'public') statuses.add(403);
  if (path.includes('{')) statuses.add(404);
  statuses.add(405);
  if (BODY_METHODS.has(method)) {
    statuses.add(413);
    statuses.add(415);
  }
  statuses.add(429); // the failed-authentication throttle, everywhere
  statuses.add(503);
  return [...statuses].sort();
}

export function completeDocument(document: Json, plane: Plane): Json {
  const { $id: _id, ...error } = ErrorBody as Json;
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, Error: error };
  document.components.headers = {};
  for (const [path, item] of Object.entries(document.paths ?? {}) as [string, Json][]) {
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      if (method === 'parameters') continue;
      operation.operationId ??= derivedOperationId(method, path);
      if (plane === 'admin') operation.tags ??= ['admin'];
      operation.summary ??= `${method.toUpperCase()} ${path}`;
      const responses: Json = operation.responses ?? {};
      // A route that declares 429 itself has a per-key (or per-endpoint) window: RateLimit-* on its answers.
      const windowed = '429' in responses;
      for (const [status, response] of Object.entries(responses) as [string, Json][]) {
        if (Number(status) >= 400) continue;
        if (!response.description || response.description === 'Default Response') response.description = STATUS_CODES[Number(status)] ?? status;
        response.headers = { ...response.headers, 'X-Request-Id': useHeader('X-Request-Id') };
        if (windowed) for (const name of RATE_LIMIT_HEADERS) response.headers[name] = useHeader(name);
      }
      for (const status of errorStatuses(plane, method, path, Object.keys(responses))) {
        responses[status] = errorResponse(status);
        if (status === 429 && windowed) for (const name of RATE_LIMIT_HEADERS) responses[status].headers[name] = useHeader(name);
      }
      operation.responses = responses;
    }
  }
  if (plane === 'public') document.webhooks = webhooksSection(document);
  // Only the headers some answer uses (the admin plane has no per-key windows).
  const used = JSON.stringify(document);
  document.components.headers = Object.fromEntries(Object.entries(HEADERS).filter(([name]) => used.includes(`"#/components/headers/${name}"`)));
  return document;
}

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', description: 'The event id: the same on every attempt of the event (deduplicate on it)', schema: { type: 'string' } },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt; refuse one too far from your clock (5 minutes is usual)', schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature',
    description: 'Space-separated "v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>" entries: one per signing secret '
      + '(two during a secret rotation\'s grace period); accept the delivery when any entry matches a secret you hold',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
  { name: 'x-svc-signature', description: 'The same value as webhook-signature (older receivers read this name)', schema: { type: 'string' } },
].map((h) => ({ ...h, in: 'header', required: true }));

/** OpenAPI 3.1 webhooks: one signed POST per event type, its body { id, type, timestamp, account_id, data }. */
function webhooksSection(document: Json): Json {
  const webhooks: Json = {};
  for (const [type, { summary, data }] of Object.entries(EVENT_PAYLOADS)) {
    const component = `${type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Event`;
    document.components.schemas[component] = {
      type: 'object',
      required: ['id', 'type', 'timestamp', 'account_id', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'the event id (also in webhook-id)' },
        type: { type: 'string', const: type },
        timestamp: { type: 'string', format: 'date-time', description: 'when the event happened' },
        account_id: { type: 'string', format: 'uuid' },
        data,
      },
    };
    webhooks[type] = {
      post: {
        operationId: `${component[0]!.toLowerCase()}${component.slice(1)}`,
        summary,
        tags: ['webhook events'],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } } },
        responses: {
          '2XX': { description: 'Delivered: any 2xx answer ends the delivery' },
          '410': { description: 'Gone: the endpoint is paused (is_active=false, disabled_reason says why) and gets nothing more until re-enabled' },
          '429': { description: 'Too Many Requests: retried no earlier than Retry-After (capped at an hour)' },
          default: { description: 'Any other answer, a redirect, or none within WEBHOOK_TIMEOUT_MS: retried per WEBHOOK_RETRY_SCHEDULE_S' },
        },
      },
    };
  }
  return webhooks;
}
