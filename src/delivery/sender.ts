// One HTTP attempt of a delivery, with undici. The connection goes through the address guard: the
// host is resolved here, every answer vetted, and the socket dialled to the vetted address while
// the Host header and TLS server name stay those of the URL. Redirects are not followed; the
// connect time-out is 5 s, the whole attempt (answer and body) WEBHOOK_TIMEOUT_MS, and at most
// 64 KiB of an answer is read (4 KiB kept).
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, request } from 'undici';
import { AddressRefusedError, type AllowList, type Lookup, systemLookup, vettedAddress } from './address-guard.ts';

const CONNECT_TIMEOUT_MS = 5000;
const READ_LIMIT = 64 * 1024;
const KEEP_LIMIT = 4 * 1024;

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** An emitter that undici accepts as a signal; `reason` becomes the request's error. */
type Abortable = EventEmitter & { reason?: Error };

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

  return {
    async send(url, headers, body) {
      const started = performance.now();
      const target = withoutCredentials(url, headers);
      // One deadline for the whole attempt (connect, answer, body): a plain timer and an emitter as
      // the signal (undici takes either); AbortSignal.timeout costs far more per call on this hot path.
      const abort: Abortable = new EventEmitter();
      const deadline = setTimeout(() => {
        abort.reason = new TimeoutError();
        abort.emit('abort');
      }, options.timeoutMs);
      try {
        const response = await request(target.url, { method: 'POST', headers: target.headers, body, dispatcher: agent, signal: abort });
        const responseBody = await readLimited(response.body);
        const retryAfter = response.statusCode === 429 || response.statusCode === 503 ? parseRetryAfter(response.headers['retry-after']) : null;
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return {
          statusCode: response.statusCode, durationMs: elapsed(started), responseBody, retryAfterS: retryAfter,
          error: ok ? null : `HTTP ${response.statusCode}${response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
        };
      } catch (error) {
        return { statusCode: null, durationMs: elapsed(started), responseBody: null, retryAfterS: null, error: describe(error, options.timeoutMs) };
      } finally {
        clearTimeout(deadline);
      }
    },
    close: () => agent.close(),
  };
}

const elapsed = (started: number) => Math.round(performance.now() - started);

// user:password in a URL becomes a Basic Authorization header (undici would not send it).
function withoutCredentials(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  if (!url.includes('@')) return { url, headers };
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url, headers };
  const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64');
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), headers: { ...headers, authorization: `Basic ${basic}` } };
}


/**
 * The first 4 KiB of the body as text, reading at most 64 KiB. Events and inline handlers, not an
 * async iterator or named closures: both cost per call on this hot path.
 */
function readLimited(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const state: ReadState = { kept: [], keptBytes: 0, read: 0, done: false };
    body.on('data', (chunk: Buffer) => {
      state.read += chunk.length;
      if (state.keptBytes < KEEP_LIMIT) {
        const part = chunk.subarray(0, KEEP_LIMIT - state.keptBytes);
        state.kept.push(part);
        state.keptBytes += part.length;
      }
      // An endless or huge answer is cut off: the connection is dropped rather than drained (the
      // abort error that destroying it reports is ours, and ignored below).
      if (state.read >= READ_LIMIT && !state.done) {
        state.done = true;
        body.destroy();
        resolve(keptText(state));
      }
    });
    body.once('end', () => {
      if (!state.done) resolve(keptText(state));
      state.done = true;
    });
    body.on('error', (error: Error) => {
      if (!state.done) reject(error);
      state.done = true;
    });
  });
}

interface ReadState {
  kept: Buffer[];
  keptBytes: number;
  read: number;
  done: boolean;
}

// PostgreSQL text cannot hold NUL; a receiver's binary answer is kept readable, not exact.
const keptText = (state: ReadState): string => Buffer.concat(state.kept).toString('utf8').replaceAll('\u0000', '\uFFFD');

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
