// @repute/client: a typed client of the Repute public API v4. The types (schema.d.ts) are generated
// from the server's OpenAPI document (`npm run client:generate`); requests go through openapi-fetch.
// Besides the client: `pages` walks a paginated list across next_cursor, and `verifyWebhook`
// checks a delivery's Standard Webhooks signature (any of several secrets, any of several signatures,
// within a timestamp tolerance) with node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto';
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths, webhooks } from './schema.d.ts';

export type { components, paths, webhooks };
export type ReputeClient = Client<paths>;
export type Schemas = components['schemas'];
/** The error envelope of every non-2xx answer. */
export type ApiError = Schemas['Error'];

export interface ReputeClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The server's address, e.g. https://repute.example.com (the /api/v4 prefix is added unless given). */
  baseUrl: string;
  /** An API key (rk_live_…): sent as Authorization: Bearer. */
  apiKey: string;
}

export function createReputeClient({ baseUrl, apiKey, headers, ...options }: ReputeClientOptions): ReputeClient {
  const root = baseUrl.replace(/\/+$/, '');
  return createClient<paths>({
    ...options,
    baseUrl: root.endsWith('/api/v4') ? root : `${root}/api/v4`,
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${apiKey}` },
  });
}

/** A non-2xx answer, as an exception: the status, the envelope's code and message. */
export class ReputeApiError extends Error {
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message);
    this.name = 'ReputeApiError';
  }
}

interface PageResult<T> {
  data?: { data: T[]; next_cursor: string | null; has_more?: boolean };
  error?: unknown;
  response: Response;
}

/**
 * Every item of a paginated list, page after page: `fetchPage` asks for one page after `cursor`
 * (undefined for the first), e.g.
 *   for await (const review of pages((cursor) => client.GET('/reviews', { params: { query: { limit: 100, cursor } } }))) …
 * A failed page throws ReputeApiError.
 */
export async function* pages<T>(fetchPage: (cursor: string | undefined) => Promise<PageResult<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await fetchPage(cursor);
    if (!data) {
      const envelope = (error ?? {}) as Partial<ApiError>;
      throw new ReputeApiError(response.status, envelope.code, envelope.error ?? `HTTP ${response.status}`);
    }
    yield* data.data;
    cursor = data.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** The body of a webhook delivery: one of the event schemas of the document's webhooks section. */
export type WebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never
}[keyof webhooks];

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceS?: number;
  /** "Now", for tests. */
  now?: Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderBag, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (!text) throw new WebhookVerificationError(`the ${name} header is missing`);
  return text;
}

const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

/**
 * Checks a delivery as Standard Webhooks defines it and returns its parsed body: webhook-timestamp
 * within the tolerance, and one of the space-separated "v1,<signature>" entries of
 * webhook-signature matching the HMAC-SHA256 of "{id}.{timestamp}.{body}" under one of `secrets`
 * (hold both during a secret rotation). `body` is the raw text as received, not re-serialised JSON.
 */
export function verifyWebhook(secrets: string | readonly string[], body: string, headers: HeaderBag, options: VerifyOptions = {}): WebhookEvent {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature').split(' ')
    .filter((entry) => entry.startsWith('v1,')).map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const now = (options.now ?? new Date()).getTime() / 1000;
  const tolerance = options.toleranceS ?? 300;
  if (Math.abs(now - seconds) > tolerance) throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const signed = `${id}.${timestamp}.${body}`;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = createHmac('sha256', keyOf(secret)).update(signed).digest();
    if (signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) return JSON.parse(body) as WebhookEvent;
  }
  throw new WebhookVerificationError('no signature in webhook-signature matches a secret given');
}
