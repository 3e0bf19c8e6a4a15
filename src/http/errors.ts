// One error type for the whole service and the one handler that turns any error into { "error": "…" }.
import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

export class AppError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

export const notFound = (what = 'resource'): AppError => new AppError(404, `${what} not found`);

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function describeOne(path: string, e: AjvError): string {
  switch (e.keyword) {
    case 'additionalProperties':
      return `${path}.${String(e.params.additionalProperty)} is not a known field`;
    case 'required':
      return `${path}.${String(e.params.missingProperty)} is required`;
    case 'enum':
      return `${path} must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `${path} must be ${JSON.stringify(e.params.allowedValue)}`;
    default:
      return `${path} ${e.message ?? 'is invalid'}`;
  }
}

const isUnion = (e: AjvError) => e.keyword === 'anyOf' || e.keyword === 'oneOf';

/**
 * "body.reservation.status must be one of: booked, arrived, …". A union (a TypeBox Union of
 * literals, or Nullable(x)) makes Ajv report one error per branch; they are folded into the one
 * sentence a person would write, and a failure inside a branch wins over "must be null".
 */
export function describeValidation(context: string, errors: AjvError[]): string {
  const groups = new Map<string, AjvError[]>();
  for (const e of errors) groups.set(e.instancePath, [...(groups.get(e.instancePath) ?? []), e]);
  const messages: string[] = [];
  for (const [pointer, group] of groups) {
    const path = [context, ...pointer.split('/').filter(Boolean)].join('.');
    if (!group.some(isUnion)) {
      messages.push(...group.map((e) => describeOne(path, e)));
      continue;
    }
    const deeper = errors.some((e) => e.instancePath.startsWith(`${pointer}/`));
    if (deeper) continue;
    const allowed = group.flatMap((e) => (e.keyword === 'const' ? [e.params.allowedValue] : e.keyword === 'enum' ? (e.params.allowedValues as unknown[]) : []));
    const types = group.filter((e) => e.keyword === 'type').map((e) => String(e.params.type));
    const others = group.filter((e) => !isUnion(e) && e.keyword !== 'type' && e.keyword !== 'const' && e.keyword !== 'enum');
    if (allowed.length > 0) {
      messages.push(`${path} must be one of: ${[...new Set([...allowed.map(String), ...types.filter((t) => t === 'null')])].join(', ')}`);
    } else if (others.length > 0) {
      messages.push(...others.map((e) => describeOne(path, e)));
    } else {
      messages.push(`${path} must be ${[...new Set(types)].join(' or ') || 'valid'}`);
    }
  }
  return [...new Set(messages)].slice(0, 3).join('; ');
}

/**
 * The methods some route answers on a path that had no route for the request's method; null or
 * empty when the path itself is unknown (or must not be revealed), which answers 404.
 */
export type AllowedMethods = (path: string) => string[] | null;

export function registerErrorHandling(app: FastifyInstance, allowed: AllowedMethods = () => null): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (isDatabaseUnavailable(error)) {
      // A restart or failover: the same request will work in a moment, so say when to retry.
      request.log.warn({ err: error }, 'database unavailable');
      error = new AppError(503, 'the database is unavailable; retry in a few seconds', { 'Retry-After': '2' });
    }
    if (error instanceof AppError) {
      return reply.status(error.status).headers(error.headers).send({ error: error.message });
    }
    const fe = error as FastifyError;
    if (fe.validation && fe.validationContext === 'params') {
      // Path ids are plain strings, so only a NUL can fail them: like any other unknown id, 404.
      return reply.status(404).send({ error: `${request.url.split('?')[0]} not found` });
    }
    if (fe.validation) {
      return reply.status(400).send({ error: describeValidation(fe.validationContext ?? 'request', fe.validation as AjvError[]) });
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: clientMessage(fe) });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal error' });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const methods = allowed(path) ?? [];
    if (methods.length === 0) return reply.status(404).send({ error: `no route ${request.method} ${path}` });
    const allow = [...methods, 'OPTIONS'].join(', ');
    if (request.method === 'OPTIONS') return reply.status(204).header('Allow', allow).send();
    return reply.status(405).header('Allow', allow).send({ error: `method ${request.method} is not allowed on ${path}; allowed: ${allow}` });
  });
}

// Fastify's own client errors (bad JSON, body too large, wrong content type) in plain words.
function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return 'body is larger than the 1 MiB limit';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return 'body must be sent as Content-Type: application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return 'body must not be empty when Content-Type is application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return `body is not valid JSON: ${error.message}`;
    default: return error.message;
  }
}
