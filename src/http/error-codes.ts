// Every machine-readable error code an answer can carry, with its status and meaning: the one list
// the README's error table is checked against (test/http/error-codes.test.ts).

export const ERROR_CODES = {
  field_invalid: { status: 400, meaning: 'a field of the body, query or path breaks its rule (type, format, range, reference); the message names it' },
  field_unknown: { status: 400, meaning: 'the body or query string has a field the endpoint does not take' },
  field_required: { status: 400, meaning: 'a required field is missing' },
  limit_invalid: { status: 400, meaning: '`limit` is not a whole number from 1 to 100' },
  cursor_invalid: { status: 400, meaning: '`cursor` is not a `next_cursor` this list gave out' },
  invalid_json: { status: 400, meaning: 'the body is not JSON, or empty with `Content-Type: application/json`' },
  url_invalid: { status: 400, meaning: 'the path is not a valid URL (a malformed `%` escape)' },
  bad_request: { status: 400, meaning: 'the request is not well-formed HTTP' },
  unauthorized: { status: 401, meaning: 'no key, or a malformed, unknown or revoked key (admin API: a wrong token)' },
  forbidden_scope: { status: 403, meaning: 'the key lacks the scope the endpoint needs' },
  feature_not_in_plan: { status: 403, meaning: 'the account\'s plan does not include the endpoint\'s feature' },
  not_found: { status: 404, meaning: 'no such resource within the key\'s reach (also ids that are not UUIDs), or no such path' },
  method_not_allowed: { status: 405, meaning: 'the path does not take this method (see `Allow`)' },
  request_timeout: { status: 408, meaning: 'the request (headers and body) did not arrive within `REQUEST_TIMEOUT_MS`' },
  conflict: { status: 409, meaning: 'the request conflicts with the resource\'s state (e.g. retrying a delivery that has not failed)' },
  guest_erased: { status: 409, meaning: 'the guest was erased under GDPR and cannot be pushed again' },
  endpoint_limit_reached: { status: 409, meaning: 'the account\'s limit of webhook endpoints is reached' },
  delivery_pending: { status: 409, meaning: 'a webhook delivery is re-sent only once it is delivered or failed; this one is still pending' },
  rotation_in_progress: { status: 409, meaning: 'a webhook secret rotation\'s grace period is running; send `"force": true` to rotate again' },
  body_too_large: { status: 413, meaning: 'the body is over 1 MiB' },
  unsupported_media_type: { status: 415, meaning: 'the body is not sent as `application/json`, or is sent compressed (`Content-Encoding`)' },
  property_invalid: { status: 422, meaning: '`property_id` is missing, outside the key\'s scope, or not a property' },
  rate_limited: { status: 429, meaning: 'too many requests in the window; wait `Retry-After` seconds' },
  auth_throttled: { status: 429, meaning: 'too many failed authentications from this address; wait `Retry-After` seconds' },
  headers_too_large: { status: 431, meaning: 'the request line and headers are over 16 KiB' },
  internal_error: { status: 500, meaning: 'a fault on the server\'s side; the log has the cause under the request id' },
  database_unavailable: { status: 503, meaning: 'the database does not answer; retry in a few seconds' },
  shutting_down: { status: 503, meaning: 'the instance is shutting down; retry (another instance answers)' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The code an error gets when its thrower named none: the usual meaning of its status. */
const BY_STATUS: Record<number, ErrorCode> = {
  400: 'field_invalid', 401: 'unauthorized', 403: 'forbidden_scope', 404: 'not_found', 405: 'method_not_allowed',
  408: 'request_timeout', 409: 'conflict', 413: 'body_too_large', 415: 'unsupported_media_type', 422: 'property_invalid',
  429: 'rate_limited', 431: 'headers_too_large', 503: 'database_unavailable',
};

/** The default code of an error whose thrower named none: the usual meaning of its status. */
export function defaultCode(status: number): ErrorCode {
  return BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}
