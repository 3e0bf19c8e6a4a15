// Answers written with JSON.stringify instead of the route's response-schema serializer
// (fast-json-stringify), for the hottest list routes only: GET /reviews and GET /insights/mentions.
// Their handlers build every object of the answer field by field, in the schema's order and with the
// schema's types (toPage, toReview, toMention), so JSON.stringify writes the very bytes the schema's
// serializer would. It does so in one native pass and returns a flat string, where the schema's
// serializer escapes field by field and concatenates thousands of pieces that writing the answer then
// has to flatten: about 40 µs of a 25-review page (bench/floor.ts). test/http/as-built.test.ts holds
// each such route to its schema's serializer, byte for byte, on awkward data.
import type { FastifyReply } from 'fastify';

const stringify = (answer: unknown): string => JSON.stringify(answer);
const JSON_TYPE = 'application/json; charset=utf-8';

/** Returns `answer`, to be sent as JSON.stringify writes it (only for answers built exactly to the route's 200 schema). */
export function asBuilt<T>(reply: FastifyReply, answer: T): T {
  // With a serializer of its own, Fastify leaves the media type to the route.
  reply.serializer(stringify).type(JSON_TYPE);
  return answer;
}
