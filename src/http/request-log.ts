// How a request appears in the log: Fastify's usual fields, with query-string values that may carry
// personal data (an admin lookup's ?email=…) replaced by "…", since an erasure cannot reach a log,
// and a guest's survey or unsubscribe token (/s/<token>, /u/<token>) too, since whoever holds one
// may answer that guest's survey or unsubscribe them; and each request's own logger, made only when
// the request writes a line.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';

/** Query parameters whose values never carry personal data and help to read a log: kept as sent. */
const SAFE_PARAMS = new Set(['limit', 'cursor', 'status']);

/** A guest's token in a path: /s/<token> and /u/<token> (not /s/public/<survey id>, which is public). */
const GUEST_TOKEN = /^\/(s|u)\/(?!public(?:[/?]|$))[^/?]+/;

/** The URL with a guest's token and every query value outside SAFE_PARAMS replaced by "…" (names are kept). */
export function redactUrl(url: string): string {
  return redactQuery(url.replace(GUEST_TOKEN, '/$1/…'));
}

function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url.slice(at + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    const name = pair.slice(0, eq);
    return SAFE_PARAMS.has(safeDecode(name)) ? pair : `${name}=…`;
  });
  return `${url.slice(0, at)}?${query.join('&')}`;
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

interface LoggedRequest {
  method: string;
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** pino serializer for `req` (the fields of Fastify's own, with the URL redacted: redactUrl). */
export function requestSerializer(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

// Each request's logger (request.log), which writes its lines with the request's id. Fastify makes it
// with pino's child() on every request: the bindings are serialized and a logger object is built,
// about 2 µs of a 190 µs answer (bench/floor.ts, GET /analytics/scores), though at the usual levels
// most requests never write a line. This one builds the child when the request first writes a line
// its level lets through, and is otherwise the same logger.

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<Logger['info']>;

class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(private readonly parent: Logger, private readonly bindings: Bindings, private readonly options: ChildLoggerOptions) {}

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.made().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }

  error(...args: LogArgs): void {
    this.write('error', args);
  }

  warn(...args: LogArgs): void {
    this.write('warn', args);
  }

  info(...args: LogArgs): void {
    this.write('info', args);
  }

  debug(...args: LogArgs): void {
    this.write('debug', args);
  }

  trace(...args: LogArgs): void {
    this.write('trace', args);
  }

  silent(): void {}

  private write(method: Method, args: LogArgs): void {
    // A level the logger drops costs a comparison, and no child is made for it.
    if (this.#child === undefined && !this.parent.isLevelEnabled(method)) return;
    (this.made()[method] as (...a: LogArgs) => void)(...args);
  }

  private made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }
}

/** Fastify's childLoggerFactory: the request's logger, made on its first line. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger as Logger, bindings, options);
}
