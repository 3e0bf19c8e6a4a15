// The receiver of the webhook benches (bench/webhooks.ts, bench/webhook-bounds.ts), in a child
// process of its own: node:http, answers 200 on /ok and 500 on /fail, counts the requests per path,
// and reports arrival times on the shared monotonic clock. Loopback only.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const nowNs = () => process.hrtime.bigint();

if (process.argv.includes('--child')) {
  const counts = new Map<string, number>();
  const waits: Array<{ path: string; n: number }> = [];
  let recording = false;
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const at = nowNs();
      res.writeHead(path === '/fail' ? 500 : 200, { 'content-length': '2' }).end('ok');
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      if (recording) process.send!({ arrival: req.headers['webhook-id'], at: String(at) });
      for (let i = waits.length - 1; i >= 0; i--) {
        if (waits[i]!.path === path && n >= waits[i]!.n) {
          process.send!({ reached: path, at: String(at) });
          waits.splice(i, 1);
        }
      }
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: { cmd: string; path?: string; n?: number; on?: boolean }) => {
    if (m.cmd === 'reset') counts.clear();
    if (m.cmd === 'record') recording = m.on!;
    if (m.cmd === 'expect') {
      if ((counts.get(m.path!) ?? 0) >= m.n!) process.send!({ reached: m.path, at: String(nowNs()) });
      else waits.push({ path: m.path!, n: m.n! });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

export interface Receiver {
  child: ChildProcess;
  url: string;
  /** Resolves with the arrival time of the n-th request to path (counted since the last reset). */
  expect(path: string, n: number, timeoutMs: number): Promise<bigint>;
  reset(): void;
  arrivals: Map<string, bigint>;
  record(on: boolean): void;
}

/** Starts the receiver in a child process; disconnect `child` to end it. */
export async function startReceiver(): Promise<Receiver> {
  const child = fork(new URL(import.meta.url).pathname, ['--child'], { execArgv: ['--import', 'tsx'] });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  const arrivals = new Map<string, bigint>();
  child.on('message', (m: { arrival?: string; at: string }) => {
    if (m.arrival) arrivals.set(m.arrival, BigInt(m.at));
  });
  return {
    child, url: `http://127.0.0.1:${port}`, arrivals,
    reset: () => child.send({ cmd: 'reset' }),
    record: (on) => child.send({ cmd: 'record', on }),
    expect: (path, n, timeoutMs) => new Promise<bigint>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver: ${path} did not reach ${n} in ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (m: { reached?: string; at: string }) => {
        if (m.reached !== path) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(BigInt(m.at));
      };
      child.on('message', onMessage);
      child.send({ cmd: 'expect', path, n });
    }),
  };
}
