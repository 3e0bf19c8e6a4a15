// Response descriptions and headers in the finished OpenAPI document: @fastify/swagger calls every
// answer whose schema has no description "Default Response" (and every error answer by the shared
// error body's description), and knows nothing of the headers our hooks set. Done on the document,
// so the routes' own schemas stay as they are.
import { STATUS_CODES } from 'node:http';

const RETRY_AFTER = { description: 'Seconds until the rate-limit window resets', schema: { type: 'integer', minimum: 0 } };

interface Response {
  description?: string;
  headers?: Record<string, object>;
}

export function describeResponses<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Record<string, Response> }>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        // Error answers share one body schema, whose description says nothing of the status.
        if (!response.description || response.description === 'Default Response' || Number(status) >= 400) {
          response.description = STATUS_CODES[Number(status)] ?? status;
        }
        if (status === '429') response.headers = { ...response.headers, 'Retry-After': RETRY_AFTER };
      }
    }
  }
  return document;
}
