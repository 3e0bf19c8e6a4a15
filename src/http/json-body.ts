// How a JSON request body is read, for every route of the app (the JSON APIs; the pages take forms).
// secure-json-parse, as Fastify's own parser uses it (prototype poisoning refused), but with faults
// that say what is wrong: Fastify's answers every one with "Body is not valid JSON", also a valid
// body that holds a "__proto__" key, and a compressed body it never decoded.
import type { FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body may be left out, or sent empty with Content-Type: application/json (parseJsonBody). */
    optionalBody?: boolean;
  }
}

/** secure-json-parse's message when it refuses a key (its version 4). */
const PROTOTYPE_REFUSAL = /^Object contains forbidden prototype property$/;

/**
 * The body as JSON, or the 4xx that says why not. A route that takes no body (a test ping, a
 * delete, a retry) or an optional one (config.optionalBody) takes an empty one: many HTTP clients
 * send Content-Type: application/json on every request. A route that takes a body answers an empty
 * one with 400 invalid_json.
 */
export function parseJsonBody(request: FastifyRequest, body: string): unknown {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    // Not decoded here: its bytes are not JSON, and saying so would send the client looking for a typo.
    throw new AppError(415, `Content-Encoding ${encoding} is not supported: send the body uncompressed`, {}, 'unsupported_media_type');
  }
  if (body === '') {
    if (request.routeOptions.schema?.body === undefined || request.routeOptions.config.optionalBody === true) return undefined;
    throw new AppError(400, 'body must not be empty when Content-Type is application/json', {}, 'invalid_json');
  }
  try {
    return secureJson.parse(body, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    // secure-json-parse's refusal (a SyntaxError too, after JSON.parse succeeded): a key that would
    // reach an object's prototype once the body is used.
    if (PROTOTYPE_REFUSAL.test((error as Error).message)) {
      throw new AppError(400, 'body holds a "__proto__" key, or a "constructor" key with a "prototype": neither is taken, at any depth', {}, 'field_invalid');
    }
    throw new AppError(400, `body is not valid JSON: ${(error as Error).message}`, {}, 'invalid_json');
  }
}
