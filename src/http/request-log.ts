// How a request appears in the log: Fastify's usual fields, with query-string values that may carry
// personal data (an admin lookup's ?email=…) replaced by "…", since an erasure cannot reach a log.

/** Query parameters whose values never carry personal data and help to read a log: kept as sent. */
const SAFE_PARAMS = new Set(['limit', 'cursor', 'status']);

/** The URL with every query value outside SAFE_PARAMS replaced by "…" (names are kept). */
export function redactQuery(url: string): string {
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

/** pino serializer for `req` (the fields of Fastify's own, with the URL redacted). */
export function requestSerializer(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactQuery(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
