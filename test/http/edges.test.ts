// Answers given before any route, over real sockets: headers too large (431), a malformed % in the
// path (400), malformed HTTP (400), and a request that trickles in (408, REQUEST_TIMEOUT_MS): each in
// the { "error", "code" } envelope with an X-Request-Id, the connection then closed. And an id of any
// length reaches its route: 401 without a key, 404 with one.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN, type TestApp } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Milliseconds from the first byte written to the connection's close. */
  closedAfterMs: number;
}

/** Writes `chunks` on a fresh connection (pausing `pauseMs` between them) and reads until it closes. */
async function raw(port: number, chunks: string[], pauseMs = 0): Promise<RawAnswer> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const started = Date.now();
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    socket.write(chunk);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  await closed;
  const closedAfterMs = Date.now() - started;
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : null, closedAfterMs };
}

function assertEnvelope(answer: RawAnswer, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer));
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(answer.body), ['error', 'code']);
  assert.equal(typeof answer.body.error, 'string');
  assert.equal(answer.body.code, code);
  assert.match(answer.headers['x-request-id'] ?? '', /^[A-Za-z0-9._:-]{1,128}$/, 'every answer carries a request id');
}

async function listening(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as { port: number }).port;
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`;

eachDatabase('headers over 16 KiB answer 431, a malformed % escape 400, malformed HTTP 400, all in the envelope', async (t) => {
  const port = await listening(t);
  assertEnvelope(await raw(port, [get('/api/v4/reviews', `X-Big: ${'a'.repeat(20 * 1024)}\r\n`)]), 431, 'headers_too_large');
  for (const path of ['/api/v4/reviews/%zz', '/admin/v1/accounts/%E0%A4%A/nodes', '/api/v4/%']) {
    assertEnvelope(await raw(port, [get(path)]), 400, 'url_invalid');
  }
  assertEnvelope(await raw(port, ['NOT HTTP AT ALL\r\n\r\n']), 400, 'bad_request');
});

eachDatabase('an id of any length reaches its route: 401 without a key, 404 with one, never 414', async (t) => {
  const port = await listening(t);
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  for (const length of [101, 1000, 8000]) {
    assertEnvelope(await raw(port, [get(`/api/v4/reviews/${'a'.repeat(length)}`)]), 401, 'unauthorized');
    assertEnvelope(await raw(port, [get(`/api/v4/reviews/${'a'.repeat(length)}`, `Authorization: Bearer ${key}\r\n`)]), 404, 'not_found');
  }
  assert.equal((await t.app.inject({ method: 'GET', url: `/admin/v1/deliveries/${'b'.repeat(300)}` })).statusCode, 401);
  const injected = await t.app.inject({ method: 'GET', url: `/admin/v1/deliveries/${'b'.repeat(300)}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(injected.statusCode, 404);
  assert.deepEqual(Object.keys(injected.json()), ['error', 'code']);
});

eachDatabase('a body that trickles in is cut off after REQUEST_TIMEOUT_MS with 408 in the envelope', async (t) => {
  const port = await listening(t);
  const body = JSON.stringify({ name: 'Slow Hotel Group' });
  const head = (authorization: string) => `POST /admin/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  // One byte every 200 ms: the whole body would take ~5 s; the limit is 1 s.
  const answer = await raw(port, [head(`Bearer ${ADMIN_TOKEN}`), ...body.split('')], 200);
  assertEnvelope(answer, 408, 'request_timeout');
  assert.ok(answer.closedAfterMs < 3500, `closed after ${answer.closedAfterMs} ms`);
  // Refused before its body is in (a wrong token): one answer, and the connection closes at once.
  const refused = await raw(port, [head('Bearer wrong-token-0123456789'), ...body.split('')], 200);
  assertEnvelope(refused, 401, 'unauthorized');
  assert.ok(refused.closedAfterMs < 1500, `closed after ${refused.closedAfterMs} ms`);
  // Headers that never finish are cut off the same way.
  const slowHeaders = await raw(port, [...'GET /api/v4/reviews HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1234567890123456789'.split('')], 150);
  assertEnvelope(slowHeaders, 408, 'request_timeout');
}, { env: { REQUEST_TIMEOUT_MS: '1000' } });

eachDatabase('a request that arrives while the instance shuts down answers 503 shutting_down in the envelope', async (t) => {
  const port = await listening(t);
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Headers begun before shutdown (so the connection is not idle and stays open), finished after it.
  socket.write('GET /api/v4/reviews HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closing = t.app.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write('\r\n');
  await closed;
  await closing;
  const [head = '', body = ''] = text.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 503 /);
  assert.match(head, /\r\nretry-after: 1\r\n/i);
  assert.deepEqual(JSON.parse(body), { error: 'this instance is shutting down: retry, another instance will answer', code: 'shutting_down' });
});
