// One error type for the whole service and the one handler that turns any error into { "error": "…" }.
import type { FastifyError, FastifyInstance } from 'fastify';

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

/** "body.reservation.status must be equal to one of the allowed values: booked, arrived, …" */
export function describeValidation(context: string, errors: AjvError[]): string {
  return errors.slice(0, 3).map((e) => {
    const path = [context, ...e.instancePath.split('/').filter(Boolean)].join('.');
    switch (e.keyword) {
      case 'additionalProperties':
        return `${path}.${String(e.params.additionalProperty)} is not a known field`;
      case 'required':
        return `${path}.${String(e.params.missingProperty)} is required`;
      case 'enum':
        return `${path} must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
      default:
        return `${path} ${e.message ?? 'is invalid'}`;
    }
  }).join('; ');
}

/**
 * The methods some route answers on a path that had no route for the request's method; null or
 * empty when the path itself is unknown (or must not be revealed), which answers 404.
 */
export type AllowedMethods = (path: string) => string[] | null;

export function registerErrorHandling(app: FastifyInstance, allowed: AllowedMethods = () => null): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
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
