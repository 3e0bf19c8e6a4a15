// The HTTP error type (for the plumbing's own answers: auth, rate limit, shutdown) and the one handler
// that turns any error, a domain error of a service included, into a status and
// { "error": "…", "code": "…" } (the codes and their statuses are listed in error-codes.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorKind } from '../lib/errors.ts';
import { ERROR_CODES, defaultCode, type ErrorCode } from './error-codes.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

export class AppError extends Error {
  readonly code: ErrorCode;
  /** `code` defaults to the usual meaning of the status (400 field_invalid, 404 not_found, …). */
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}, code?: ErrorCode) {
    super(message);
    this.code = code ?? defaultCode(status);
  }
}

/** An HTTP error named by its rule; the status comes from the code's entry in ERROR_CODES. */
export const domainError = (code: ErrorCode, message: string, headers: Record<string, string> = {}): AppError =>
  new AppError(ERROR_CODES[code].status, message, headers, code);

/** The status of each kind of domain error (src/lib/errors.ts). */
const STATUS: Record<ErrorKind, number> = {
  invalid: 400, unauthenticated: 401, 'not-found': 404, conflict: 409, unprocessable: 422,
};

/** A domain error as the HTTP error it answers with: its own code, else the status's usual one. */
const fromDomain = (error: DomainError): AppError => new AppError(STATUS[error.kind], error.message, {}, error.code);

/** The body of every non-2xx answer. */
export interface ErrorEnvelope {
  error: string;
  code: ErrorCode;
}

export const envelope = (message: string, code: ErrorCode): ErrorEnvelope => ({ error: message, code });

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
    case 'type': // Ajv writes a nullable field's rule as "must be string,null"
      return typeof e.params.type === 'string' ? `${path} must be ${e.params.type.split(',').join(' or ')}` : `${path} ${e.message ?? 'is invalid'}`;
    case 'minProperties':
      return e.params.limit === 1 ? `${path} must name at least one field` : `${path} ${e.message ?? 'is invalid'}`;
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

/**
 * Any thrown error as the HTTP error it answers with: a domain error by its kind, a database outage
 * as 503, a schema failure as 400 naming the field, Fastify's own client errors in plain words, and
 * anything else as a logged 500. The JSON APIs and the pages (src/web/) both answer from this.
 */
export function httpErrorOf(thrown: FastifyError | AppError | DomainError, request: FastifyRequest): AppError {
  const error = thrown instanceof DomainError ? fromDomain(thrown) : thrown;
  if (isDatabaseUnavailable(error)) {
    // A restart or failover: the same request will work in a moment, so say when to retry.
    request.log.warn({ err: error }, 'database unavailable');
    return new AppError(503, 'the database is unavailable; retry in a few seconds', { 'Retry-After': '2' }, 'database_unavailable');
  }
  if (error instanceof AppError) return error;
  const fe = error as FastifyError;
  if (fe.validation && fe.validationContext === 'params') {
    // Path ids are plain strings, so only a NUL can fail them: like any other unknown id, 404.
    return new AppError(404, `${request.url.split('?')[0]} not found`, {}, 'not_found');
  }
  if (fe.validation) {
    const message = describeValidation(fe.validationContext ?? 'request', fe.validation as AjvError[]);
    return new AppError(400, message, {}, validationCode(fe.validationContext, fe.validation as AjvError[]));
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const { message, code } = clientError(fe, status);
    return new AppError(status, message, {}, code);
  }
  request.log.error({ err: error }, 'request failed');
  return new AppError(500, 'internal error', {}, 'internal_error');
}

/**
 * How a request no route took is answered as a page (404, or 405 with Allow set) when a person's
 * browser asks outside the JSON APIs; null while the pages are not mounted (src/web/plugin.ts).
 */
export interface FaultPages {
  render: ((request: FastifyRequest, reply: FastifyReply, status: number, message: string) => FastifyReply) | null;
  /**
   * Paths answered with a page whatever the client accepts: a guest's survey and unsubscribe links,
   * which a mail provider's one-click POST reaches without asking for HTML (set with render).
   */
  alwaysPage?: (path: string) => boolean;
}

/** The JSON planes: every answer there is the error envelope, whatever the client accepts. */
const JSON_PLANES = /^\/(?:api|admin)(?:\/|$)/;

/** Whether a fault is answered as a page: a person's browser, outside the JSON planes. */
export const wantsPage = (request: FastifyRequest, path: string): boolean =>
  !JSON_PLANES.test(path) && /\btext\/html\b/.test(request.headers.accept ?? '');

/** The page renderer when this fault is answered as a page (wantsPage, or a path always answered so), else null. */
export const pageFor = (pages: FaultPages, request: FastifyRequest, path: string): FaultPages['render'] =>
  pages.render !== null && (wantsPage(request, path) || pages.alwaysPage?.(path) === true) ? pages.render : null;

export function registerErrorHandling(app: FastifyInstance, allowed: AllowedMethods = () => null, pages: FaultPages = { render: null }): void {
  app.setErrorHandler((thrown: FastifyError | AppError | DomainError, request, reply) => {
    const error = httpErrorOf(thrown, request);
    return reply.status(error.status).headers(error.headers).send(envelope(error.message, error.code));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A route that takes this method but found nothing (a static file that is not there) is a 404 too.
    const methods = allowed(path) ?? [];
    const page = pageFor(pages, request, path);
    if (methods.length === 0 || methods.includes(request.method)) {
      const message = `no route ${request.method} ${path}`;
      return page ? page(request, reply, 404, message) : reply.status(404).send(envelope(message, 'not_found'));
    }
    const allow = [...methods, 'OPTIONS'].join(', ');
    if (request.method === 'OPTIONS') return reply.status(204).header('Allow', allow).send();
    const message = `method ${request.method} is not allowed on ${path}; allowed: ${allow}`;
    reply.header('Allow', allow);
    return page ? page(request, reply, 405, message) : reply.status(405).send(envelope(message, 'method_not_allowed'));
  });
}

/** Pagination's query parameters, whose rules have codes of their own. */
const PAGINATION_CODES: Record<string, ErrorCode> = { '/limit': 'limit_invalid', '/cursor': 'cursor_invalid' };

/** The code of a schema failure: the first failing rule decides (its message comes first too). */
function validationCode(context: string | undefined, errors: AjvError[]): ErrorCode {
  const first = errors[0];
  if (first?.keyword === 'additionalProperties') return 'field_unknown';
  if (first?.keyword === 'required') return 'field_required';
  return (context === 'querystring' && first ? PAGINATION_CODES[first.instancePath] : undefined) ?? 'field_invalid';
}

// Fastify's own client errors (body too large, wrong content type) in plain words; JSON bodies' own
// faults are src/http/json-body.ts's.
function clientError(error: FastifyError, status: number): { message: string; code: ErrorCode } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return { message: 'body is larger than the 1 MiB limit', code: 'body_too_large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return { message: 'body must be sent as Content-Type: application/json', code: 'unsupported_media_type' };
    default: return { message: error.message, code: defaultCode(status) };
  }
}
