// A real webhook receiver for tests: an HTTP server on a loopback address that records every
// request (headers, body, arrival time) and answers as the test tells it (status, headers, body,
// a stall until released, or an endless body).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** performance.now() at arrival. */
  at: number;
}

export type Answer =
  /** delayMs: answer that much later (a slow receiver). */
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  /** Keep the request open until release() or close(). */
  | 'stall'
  /** 200 and a body that never ends; counts what was written. */
  | 'endless';

export interface Receiver {
  url: string;
  host: string;
  port: number;
  requests: ReceivedRequest[];
  /** Bytes written into endless bodies so far. */
  endlessBytes: number;
  /** How to answer each request (200 "ok" by default). */
  answer(fn: (request: ReceivedRequest, index: number) => Answer): void;
  /** Answers every stalled request with 200 and lets new ones through. */
  release(): void;
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1', port = 0): Promise<Receiver> {
  let decide: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  const stalled = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();
  const requests: ReceivedRequest[] = [];
  const receiver = { endlessBytes: 0 } as Receiver;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now(),
      };
      requests.push(request);
      const answer = decide(request, requests.length - 1);
      if (answer === 'stall') {
        stalled.add(res);
        res.on('close', () => stalled.delete(res));
        return;
      }
      if (answer === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) receiver.endlessBytes += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
        return;
      }
      const send = () => {
        if (!res.destroyed) res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return Object.assign(receiver, {
    url: `http://${urlHost}:${address.port}`,
    host,
    port: address.port,
    requests,
    answer(fn: typeof decide) {
      decide = fn;
    },
    release() {
      decide = () => ({ status: 200, body: 'ok' });
      for (const res of stalled) res.writeHead(200).end('ok');
      stalled.clear();
    },
    async waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 10_000, what = 'the expected requests') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline) throw new Error(`receiver: timed out after ${timeoutMs} ms waiting for ${what} (got ${requests.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
