// Answers given before any route runs, in the same { "error", "code" } envelope as the rest (or, for
// a person's browser outside the JSON APIs, the same fault page): a path Fastify's router cannot
// decode (a bad % escape) and requests Node's HTTP parser refuses (headers over
// 16 KiB, malformed HTTP, a request that did not arrive in time).
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from './error-codes.ts';
import { envelope, type ErrorEnvelope, type FaultPages, pageFor } from './errors.ts';

const pathOf = (request: FastifyRequest): string => request.raw.url?.split('?')[0] ?? '/';

/**
 * Fastify's `frameworkErrors` option: router failures answered like any other error, as a page for a
 * person's browser outside the JSON APIs (a survey link cut short or mangled in a mail client).
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, pages: FaultPages): void {
  const answer = (status: number, message: string, code: ErrorCode): void => {
    // Answered before the hooks that would add it (the router refused the request).
    reply.header('x-request-id', request.id);
    const page = pageFor(pages, request, pathOf(request));
    if (page !== null) void page(request, reply, status, message);
    else void reply.status(status).send(envelope(message, code));
  };
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      answer(400, `the path ${JSON.stringify(pathOf(request)).slice(0, 300)} is not a valid URL: it has a malformed % escape`, 'url_invalid');
      return;
    default:
      request.log.error({ err: error }, 'request failed');
      void reply.status(500).send(envelope('internal error', 'internal_error'));
  }
}

function parserAnswer(error: NodeJS.ErrnoException): [number, ErrorEnvelope] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, envelope('the request did not arrive in time: send headers and body without pausing', 'request_timeout')];
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, envelope('the request line and headers are over the 16 KiB limit', 'headers_too_large')];
  return [400, envelope('the request is not well-formed HTTP/1.1', 'bad_request')];
}

/**
 * Fastify's `clientErrorHandler` (the server's 'clientError' event): Node's parser refused the
 * request before Fastify saw it, so the answer is written on the socket by hand, then it is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already under way on this socket (say a 401 sent before the body came) cannot be followed by another.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (!socket.writable || answering) return void socket.destroy();
  const [status, body] = parserAnswer(error);
  const json = JSON.stringify(body);
  // A fresh request id, as every other answer carries one (no request was read to take one from).
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\n`
    + `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  // end() flushes the answer first; a client that never closes its side is cut off a second later.
  setTimeout(() => socket.destroy(), 1000).unref();
}
