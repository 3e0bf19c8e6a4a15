// Real `repute serve` / `repute worker` processes for the fault tests and the fault benchmark: spawn
// with their log lines collected, the requests of the mixed load, and what an outage answer must be.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { cliDatabaseUrl, cliEnv, startCli } from '../cli/run.ts';
import type { TestDatabase } from './app.ts';
import { freePort } from './ports.ts';

export interface ReputeProcess {
  child: ChildProcess;
  /** stdout and stderr, line by line (JSON log lines at LOG_LEVEL=info). */
  lines: string[];
  /** null while the process runs. */
  exitCode(): number | string | null;
  /** Resolves with the exit code (or the signal) when the process has exited. */
  exited: Promise<number | string>;
}

export function spawnRepute(args: string[], env: Record<string, string>): ReputeProcess {
  const child = startCli(args, env);
  child.stdin!.end();
  const lines: string[] = [];
  let rest = '';
  const collect = (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let code: number | string | null = null;
  const exited = new Promise<number | string>((resolve) => child.on('exit', (c, signal) => {
    code = c ?? signal ?? 'exited';
    resolve(code);
  }));
  return { child, lines, exitCode: () => code, exited };
}

/** Sends `signal` (SIGKILL after 15 s) unless the process has exited; resolves with its exit code. */
export async function stopRepute(p: ReputeProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  if (p.exitCode() === null) p.child.kill(signal);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}

export interface ServeAndWorker {
  serve: ReputeProcess;
  worker: ReputeProcess;
  /** http://127.0.0.1:<port> of `repute serve`. */
  base: string;
  stop(): Promise<void>;
}

/**
 * `repute serve` with its inline worker and a separate `repute worker` on one database, once the
 * server is ready and the worker listens for commits. `env` makes each one's environment.
 */
export async function startServeAndWorker(env: (extra: Record<string, string>) => Record<string, string>): Promise<ServeAndWorker> {
  const port = await freePort();
  const serve = spawnRepute(['serve'], env({ PORT: String(port), REPUTE_WORKER: 'inline' }));
  const worker = spawnRepute(['worker'], env({}));
  const started: ServeAndWorker = {
    serve, worker, base: `http://127.0.0.1:${port}`,
    stop: async () => {
      await Promise.all([stopRepute(serve), stopRepute(worker)]);
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = (await fetch(`${started.base}/readyz`).catch(() => null))?.status === 200;
    if (ready && worker.lines.some((l) => l.includes('listening for committed events'))) return started;
    if (serve.exitCode() !== null || worker.exitCode() !== null || Date.now() > deadline) {
      await started.stop();
      throw new Error(`repute serve and repute worker did not start:\n${[...serve.lines, ...worker.lines].slice(-20).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Environment of a fault-test process: the test database (PostgreSQL: its schema) under an
 * application_name the test can find its backends by, info logs, quick polls and retries, a
 * loopback receiver admitted, and a rate limit the load never reaches.
 */
export function faultEnv(db: TestDatabase, applicationName: string, extra: Record<string, string> = {}, baseUrl = db.url): Record<string, string> {
  const url = cliDatabaseUrl({ ...db, url: baseUrl });
  return cliEnv(`${url}&application_name=${encodeURIComponent(applicationName)}`, {
    LOG_LEVEL: 'info', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_POLL_MS: '200',
    WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_SCHEDULE_S: '0,0.2,0.5,1,1,1,1,1,1,1,1,1', RATE_LIMIT_MAX: '1000000', ...extra,
  });
}

export interface Answer {
  status: number;
  retryAfter: string | null | undefined;
  body: string;
  /** performance.now() when the answer came back. */
  at?: number;
}

async function call(url: string, init: RequestInit): Promise<Answer> {
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text(), at: performance.now() };
  } catch (error) {
    // No answer at all (refused, reset, timed out): status 0, which no assertion accepts.
    return { status: 0, retryAfter: null, body: String(error), at: performance.now() };
  }
}

export const listReviews = (base: string, key: string): Promise<Answer> =>
  call(`${base}/api/v4/reviews?limit=10`, { headers: { authorization: `Bearer ${key}` } });

export const guestPush = (base: string, key: string, propertyId: string, email: string): Promise<Answer> =>
  call(`${base}/api/v4/guests`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, property_id: propertyId, first_name: 'Fault', reservation: { external_id: `r-${email}`, status: 'booked' } }),
  });

/** An answer during a database outage: 503, Retry-After in whole seconds, and the error envelope. */
export function assertUnavailable(a: Answer): void {
  assert.equal(a.status, 503, a.body);
  assert.match(String(a.retryAfter), /^\d+$/, `Retry-After: ${a.retryAfter}`);
  const body = JSON.parse(a.body) as Record<string, unknown>;
  assert.equal(typeof body.error, 'string', a.body);
  // The envelope: the error message, and at most its machine code.
  assert.deepEqual(Object.keys(body).filter((k) => k !== 'error' && k !== 'code'), [], a.body);
  if ('code' in body) assert.equal(body.code, 'database_unavailable');
}
