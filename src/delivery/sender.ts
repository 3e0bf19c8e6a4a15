// One HTTP attempt of a delivery, with undici. The connection goes through the address guard: the
// host is resolved here, every answer vetted, and the socket dialled to the vetted address while
// the Host header and TLS server name stay those of the URL. Redirects are not followed; the
// connect time-out is 5 s, the whole attempt (answer and body) WEBHOOK_TIMEOUT_MS, and at most
// 64 KiB of an answer is read (4 KiB kept).
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { AllowList } from '../lib/allow-list.ts';
import { decodedUrlPart } from '../lib/url-part.ts';
import { AddressRefusedError, type Lookup, systemLookup, vettedAddress } from './address-guard.ts';

const CONNECT_TIMEOUT_MS = 5000;
const READ_LIMIT = 64 * 1024;
const KEEP_LIMIT = 4 * 1024;
/** Parsed endpoint URLs kept; cleared when full (a worker sends to far fewer endpoints). */
const TARGETS_KEPT = 10_000;

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

export interface AttemptOutcome {
  /** null when no answer came (refused address, network error, time-out). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first 4 KiB of the answer's body. */
  responseBody: string | null;
  /** Retry-After of a 429 or 503 answer, in seconds. */
  retryAfterS: number | null;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

export interface SenderOptions {
  timeoutMs: number;
  allow: AllowList;
  /** The resolver (tests give one that answers what they need); the system's by default. */
  lookup?: Lookup;
}

export function createSender(options: SenderOptions): Sender {
  const lookup = options.lookup ?? systemLookup;
  const dial = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  const agent = new Agent({
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4000,
    connect: (connectOptions, callback) => {
      const port = Number(connectOptions.port) || (connectOptions.protocol === 'https:' ? 443 : 80);
      vettedAddress(options.allow, lookup, connectOptions.hostname, port).then(
        // host (and so the TLS server name undici derives from it) stays the URL's.
        (vetted) => dial({ ...connectOptions, hostname: vetted.address }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });
  const targets = new Map<string, Target>();

  return {
    send(url, headers, body) {
      return new Promise<AttemptOutcome>((resolve) => {
        let target = targets.get(url);
        if (target === undefined) {
          try {
            target = targetOf(url);
          } catch (error) {
            resolve(failed(performance.now(), describe(error, options.timeoutMs)));
            return;
          }
          if (targets.size >= TARGETS_KEPT) targets.clear();
          targets.set(url, target);
        }
        const attempt = new Attempt(resolve, options.timeoutMs);
        const sent = target.authorization === null ? headers : { ...headers, authorization: target.authorization };
        agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: sent, body }, attempt);
      });
    },
    close: () => agent.close(),
  };
}

/** Where an endpoint URL sends: origin and path, and user:password as a Basic header (undici would not send it). */
interface Target {
  origin: string;
  path: string;
  authorization: string | null;
}

function targetOf(url: string): Target {
  const parsed = new URL(url);
  const authorization = parsed.username || parsed.password
    ? `Basic ${Buffer.from(`${decodedUrlPart(parsed.username)}:${decodedUrlPart(parsed.password)}`).toString('base64')}`
    : null;
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, authorization };
}

const elapsed = (started: number) => Math.round(performance.now() - started);

const failed = (started: number, error: string): AttemptOutcome =>
  ({ statusCode: null, durationMs: elapsed(started), responseBody: null, retryAfterS: null, error });

/**
 * One attempt as an undici dispatch handler: the status, Retry-After and the first 4 KiB of the
 * answer, reading at most 64 KiB, within one deadline for the whole attempt (connect, answer,
 * body). Driving the dispatcher directly, rather than through `request()`, spares each attempt a
 * body stream, an abort signal and their listeners: the sender's own cost was twice a plain
 * `request()` loop's. Settles once; whatever undici reports after that (the abort we caused) is ignored.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly deadline: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private statusCode = 0;
  private retryAfter: string | string[] | undefined;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private read = 0;

  constructor(private readonly resolve: (outcome: AttemptOutcome) => void, private readonly timeoutMs: number) {
    this.deadline = setTimeout(timeOut, timeoutMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The deadline passed while connecting: the request is not sent.
    if (this.settled) controller.abort(new TimeoutError());
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.statusCode = statusCode; // a 1xx comes before the final answer
    this.retryAfter = headers['retry-after'];
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.read += chunk.length;
    if (this.keptBytes < KEEP_LIMIT) {
      const part = chunk.subarray(0, KEEP_LIMIT - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    // An endless or huge answer is cut off: the connection is dropped rather than drained.
    if (this.read >= READ_LIMIT) {
      this.answered();
      controller.abort(new Error('answer cut off at the read limit'));
    }
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle(failed(this.started, describe(error, this.timeoutMs)));
  }

  timedOut(): void {
    this.settle(failed(this.started, describe(new TimeoutError(), this.timeoutMs)));
    this.controller?.abort(new TimeoutError());
  }

  private answered(): void {
    const { statusCode } = this;
    const ok = statusCode >= 200 && statusCode < 300;
    this.settle({
      statusCode, durationMs: elapsed(this.started), responseBody: keptText(this.kept),
      retryAfterS: statusCode === 429 || statusCode === 503 ? parseRetryAfter(this.retryAfter) : null,
      error: ok ? null : `HTTP ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`,
    });
  }

  private settle(outcome: AttemptOutcome): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.resolve(outcome);
  }
}

const timeOut = (attempt: Attempt) => attempt.timedOut();

// PostgreSQL text cannot hold NUL; a receiver's binary answer is kept readable, not exact. Most
// answers come in one chunk, read as it is rather than copied first.
function keptText(kept: Buffer[]): string {
  const text = (kept.length === 1 ? kept[0]! : Buffer.concat(kept)).toString('utf8');
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** Retry-After as seconds (a number of seconds or an HTTP date), or null when absent or malformed. */
function parseRetryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof AddressRefusedError) return error.message;
  const e = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e.cause instanceof AddressRefusedError) return e.cause.message;
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timed out after ${timeoutMs} ms`;
  }
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return `connect timed out after ${CONNECT_TIMEOUT_MS} ms`;
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `host name not resolved (${e.code})`;
  return [e.code, e.message].filter(Boolean).join(': ') || String(error);
}
