// The service's configuration: one schema over the environment, parsed once at start and frozen.
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigError } from './lib/config-error.ts';
import { parseAllowList } from './lib/allow-list.ts';
import { makeFolder } from './lib/make-folder.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | null;
  readonly adminToken: string | null;
  /** Bearer token of GET /metrics; null: the route does not exist. */
  readonly metricsToken: string | null;
  /** 32 raw bytes; encrypts webhook signing secrets at rest. */
  readonly secretKey: Buffer;
  readonly rateLimitMax: number;
  readonly rateLimitWindowS: number;
  /** Test pings per webhook endpoint per minute. */
  readonly webhookTestLimit: number;
  /** Failed authentications (API key or admin token) allowed per client address per window. */
  readonly authFailureLimit: number;
  readonly authFailureWindowS: number;
  /** Proxies whose X-Forwarded-For names the client (Fastify's trustProxy); false: the peer is the client. */
  readonly trustProxy: string | false;
  /** The longest a request's headers and body may take to arrive. */
  readonly requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  readonly idleTimeoutMs: number;
  readonly webhookRetryScheduleS: readonly number[];
  readonly webhookPollMs: number;
  readonly webhookTimeoutMs: number;
  /** Days finished webhook deliveries (with their attempts) and unreferenced events are kept; 0: for ever. */
  readonly webhookRetentionDays: number;
  readonly webhookAllowPrivate: readonly string[];
  readonly webhookEndpointLimit: number;
  /** An endpoint whose every counted attempt failed for this long is disabled (0: never). */
  readonly webhookAutoDisableAfterS: number;
  readonly worker: 'inline' | 'off';
  readonly logLevel: string;
  /** Where people reach this server (links in e-mails, secure cookies); no trailing slash. */
  readonly publicUrl: string;
  /** Dashboard sign-in: failed attempts per e-mail, and per client address, within the window. */
  readonly loginEmailFailureLimit: number;
  readonly loginAddressFailureLimit: number;
  readonly loginFailureWindowS: number;
  /** A dashboard session ends after this long without a request, and this long after sign-in whatever happens. */
  readonly sessionIdleS: number;
  readonly sessionMaxS: number;
  /** smtp:// or smtps:// server for invitation e-mails; null: none are sent (or written to mailDir). */
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** Without SMTP_URL: invitation e-mails are written here as .eml files instead (the demo's). */
  readonly mailDir: string | null;
  /** Seconds before each retry of an invitation the SMTP server refused for now; then it fails. */
  readonly mailRetryScheduleS: readonly number[];
  /** How long a worker holds a claimed invitation; a worker killed mid-send leaves it to others after this. */
  readonly mailLeaseS: number;
}

/** Start-up fails with this (src/lib/config-error.ts): one line naming the variable and what is wrong. */
export { ConfigError };

type Env = Record<string, string | undefined>;

/** A value quoted for an error line: JSON escapes keep a pasted newline from splitting the line. */
const quote = (raw: string): string => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got ${quote(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A number of seconds as people write one: "300", "0.5" (never "0x10", "1e3" or "-1"). */
const PLAIN_SECONDS = /^(0|[1-9]\d*)(\.\d+)?$/;

function scheduleVar(env: Env, name: string, fallback: string): number[] {
  const raw = env[name]?.trim() || fallback;
  const parts = raw.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.length > 50 || parts.some((p) => !PLAIN_SECONDS.test(p))) {
    throw new ConfigError(`${name} must be a comma list of 1 to 50 non-negative numbers of seconds, got ${quote(raw)}`);
  }
  return values;
}

function databaseUrlVar(env: Env): string {
  const url = env.DATABASE_URL?.trim() || 'sqlite:./data/repute.db';
  // An empty path would be a database in memory, gone at the next stop, with a throwaway key: said, not guessed.
  if (url.startsWith('sqlite:') && sqlitePath(url) === '') {
    throw new ConfigError('DATABASE_URL sqlite: needs a file, e.g. sqlite:./data/repute.db (or sqlite::memory: for a database that vanishes at stop)');
  }
  if (url.startsWith('sqlite:')) return url;
  if (!url.startsWith('postgres://') && !url.startsWith('postgresql://')) throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got ${quote(url)}`);
  // Parsed here, as the driver would later (a port of 99999 or "abc"), so the line names the variable.
  if (!URL.canParse(url)) throw new ConfigError(`DATABASE_URL is not a valid postgres:// address (check the port, and percent-encode special characters of the password): ${quote(maskPassword(url))}`);
  return url;
}

/** Path of the SQLite file named by a sqlite: URL (":memory:" stays as is). */
export function sqlitePath(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
}

function secretKeyVar(env: Env, databaseUrl: string): Buffer {
  const raw = env.REPUTE_SECRET_KEY?.trim();
  if (raw) {
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('REPUTE_SECRET_KEY must be 32 bytes, base64-encoded (try: openssl rand -base64 32)');
    return key;
  }
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError('REPUTE_SECRET_KEY is required with a PostgreSQL DATABASE_URL (32 bytes, base64)');
  }
  const path = sqlitePath(databaseUrl);
  if (path === ':memory:') return randomBytes(32);
  // Embedded mode: keep a generated key beside the database file so a restart can still decrypt.
  const keyFile = join(dirname(path), 'secret.key');
  try {
    if (existsSync(keyFile)) {
      const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new ConfigError(`${keyFile} must hold 32 bytes, base64-encoded, as repute wrote it; it holds ${key.length} (restore it from a backup)`);
      return key;
    }
    // Owner-only, like the database beside it (connect.ts): the folder holds personal data and this key.
    makeFolder(dirname(keyFile), 0o700);
    const key = randomBytes(32);
    writeFileSync(keyFile, key.toString('base64') + '\n', { mode: 0o600 });
    return key;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // A folder this user may not write (or read): said in terms of the setting that chose it.
    const { code, syscall, path: refused } = error as NodeJS.ErrnoException;
    throw new ConfigError(`DATABASE_URL names a folder that cannot hold the generated secret.key (${syscall ?? 'access'} ${refused ?? keyFile}: ${code ?? String(error)}): choose a folder this user may write, or set REPUTE_SECRET_KEY`);
  }
}

function redisUrlVar(env: Env): string | null {
  const url = env.REDIS_URL?.trim() || null;
  if (url === null) return null;
  if (!/^rediss?:\/\/./.test(url)) throw new ConfigError(`REDIS_URL must start with redis:// or rediss://, got ${quote(maskPassword(url))}`);
  if (!URL.canParse(url)) throw new ConfigError(`REDIS_URL is not a valid address (check the port): ${quote(maskPassword(url))}`);
  // The database's number, if any: ioredis would send SELECT NaN for "/abc" (and crash the process).
  if (!/^\/?(\d{1,5})?$/.test(new URL(url).pathname)) throw new ConfigError(`REDIS_URL may end in a database number (/0, /1, …), got ${quote(maskPassword(url))}`);
  return url;
}

/** scheme://user:secret@host/… → scheme://user:***@host/… (for error lines and logs). */
export function maskPassword(url: string): string {
  // Up to the last @ of the authority: a password with an unencoded @ is hidden whole.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^/]*@/i, '$1***@');
}

/** WEBHOOK_ALLOW_PRIVATE's entries, checked now (the worker parses them again when it starts). */
function allowPrivateVar(env: Env): string[] {
  const entries = listVar(env, 'WEBHOOK_ALLOW_PRIVATE');
  parseAllowList(entries);
  return entries;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevelVar(env: Env): string {
  const level = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${quote(level)}`);
  return level;
}

/** At least 16 characters: the token is all that guards its plane (the operator's, or the metrics). */
function tokenVar(env: Env, name: 'REPUTE_ADMIN_TOKEN' | 'METRICS_TOKEN'): string | null {
  const token = env[name]?.trim() || null;
  if (token !== null && token.length < 16) {
    throw new ConfigError(`${name} must be at least 16 characters, got ${token.length} (try: openssl rand -hex 32)`);
  }
  return token;
}

const PROXY_WORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** Comma list of proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal). */
function trustProxyVar(env: Env): string | false {
  const parts = listVar(env, 'TRUST_PROXY');
  if (parts.length === 0) return false;
  const bad = parts.find((p) => {
    const [address, bits, extra] = p.split('/');
    if (extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return true;
    return !PROXY_WORDS.includes(p) && isIP(address ?? '') === 0;
  });
  if (bad !== undefined) throw new ConfigError(`TRUST_PROXY must be a comma list of IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal), got ${quote(bad)}`);
  return parts.join(',');
}

function listVar(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function smtpUrlVar(env: Env): string | null {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SMTP_URL is not a valid smtp:// or smtps:// address (check the port, 1 to 65535, and percent-encode special characters of the password): ${quote(maskPassword(raw))}, e.g. smtp://user:pass@mail.example.com:587`);
  }
  // The address is echoed only with its password masked.
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// address with a host, e.g. smtp://user:pass@mail.example.com:587');
  }
  return raw;
}

function mailFromVar(env: Env): string {
  const raw = env.MAIL_FROM?.trim() || 'Repute <no-reply@localhost>';
  if (!/^[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>$|^[^<>@\s]+@[^<>@\s]+$/.test(raw)) {
    throw new ConfigError(`MAIL_FROM must be an address, e.g. "Alpine Hotels <feedback@alpine.example>", got ${quote(raw)}`);
  }
  return raw;
}

/** A host name (letters, digits, hyphens and dots) or an IP address. */
function hostVar(env: Env): string {
  const host = env.HOST?.trim() || '127.0.0.1';
  if (isIP(host) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)) {
    throw new ConfigError(`HOST must be an IP address or a host name of this machine (e.g. 127.0.0.1 or 0.0.0.0), got ${quote(host)}`);
  }
  return host;
}

/** A folder invitation e-mails are written to: one that exists and is writable, or can be made. */
function mailDirVar(env: Env): string | null {
  const dir = env.MAIL_DIR?.trim() || null;
  if (dir === null) return null;
  // The nearest folder that exists must be one this process may write to.
  let existing = resolve(dir);
  while (!existsSync(existing)) existing = dirname(existing);
  let usable: boolean;
  try {
    accessSync(existing, constants.W_OK);
    usable = statSync(existing).isDirectory();
  } catch {
    usable = false;
  }
  if (!usable) throw new ConfigError(`MAIL_DIR must be a folder this process can write to (or create), got ${quote(dir)}`);
  return dir;
}

/** PUBLIC_URL, else http://HOST:PORT (a wildcard host is reached as localhost). */
function publicUrlVar(env: Env, host: string, port: number): string {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http:// or https:// address, got ${quote(raw)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// address without query, fragment or credentials, got ${quote(raw)}`);
  }
  return url.href.replace(/\/+$/, '');
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = databaseUrlVar(env);
  const worker = env.REPUTE_WORKER?.trim() || 'inline';
  if (worker !== 'inline' && worker !== 'off') throw new ConfigError(`REPUTE_WORKER must be "inline" or "off", got ${quote(worker)}`);
  const port = intVar(env, 'PORT', 8080, 0, 65535);
  const host = hostVar(env);
  const config: Config = {
    port,
    host,
    databaseUrl,
    redisUrl: redisUrlVar(env),
    adminToken: tokenVar(env, 'REPUTE_ADMIN_TOKEN'),
    metricsToken: tokenVar(env, 'METRICS_TOKEN'),
    rateLimitMax: intVar(env, 'RATE_LIMIT_MAX', 120, 1, 1_000_000_000),
    rateLimitWindowS: intVar(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    webhookTestLimit: intVar(env, 'WEBHOOK_TEST_LIMIT', 30, 1, 1_000_000),
    authFailureLimit: intVar(env, 'AUTH_FAILURE_LIMIT', 100, 1, 1_000_000),
    authFailureWindowS: intVar(env, 'AUTH_FAILURE_WINDOW_S', 60, 1, 86_400),
    trustProxy: trustProxyVar(env),
    requestTimeoutMs: intVar(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    idleTimeoutMs: intVar(env, 'IDLE_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    webhookRetryScheduleS: scheduleVar(env, 'WEBHOOK_RETRY_SCHEDULE_S', '0,5,300,1800,7200,18000,36000,36000'),
    webhookPollMs: intVar(env, 'WEBHOOK_POLL_MS', 1000, 1, 3_600_000),
    webhookTimeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 15000, 1, 600_000),
    webhookRetentionDays: intVar(env, 'WEBHOOK_RETENTION_DAYS', 30, 0, 36_500),
    webhookAllowPrivate: allowPrivateVar(env),
    webhookEndpointLimit: intVar(env, 'WEBHOOK_ENDPOINT_LIMIT', 20, 0, 100_000),
    webhookAutoDisableAfterS: intVar(env, 'WEBHOOK_AUTO_DISABLE_AFTER_S', 5 * 86400, 0, 365 * 86400),
    worker,
    logLevel: logLevelVar(env),
    publicUrl: publicUrlVar(env, host, port),
    loginEmailFailureLimit: intVar(env, 'LOGIN_EMAIL_FAILURE_LIMIT', 10, 1, 1_000_000),
    loginAddressFailureLimit: intVar(env, 'LOGIN_ADDRESS_FAILURE_LIMIT', 100, 1, 1_000_000),
    loginFailureWindowS: intVar(env, 'LOGIN_FAILURE_WINDOW_S', 900, 1, 86_400),
    sessionIdleS: intVar(env, 'SESSION_IDLE_S', 43_200, 60, 31_536_000),
    sessionMaxS: intVar(env, 'SESSION_MAX_S', 604_800, 60, 31_536_000),
    smtpUrl: smtpUrlVar(env),
    mailFrom: mailFromVar(env),
    mailDir: mailDirVar(env),
    mailRetryScheduleS: scheduleVar(env, 'MAIL_RETRY_SCHEDULE_S', '60,300,1800,7200,21600'),
    mailLeaseS: intVar(env, 'MAIL_LEASE_S', 120, 1, 86_400),
    // Last: in embedded mode it may write a new key file, which a bad value elsewhere must not leave behind.
    secretKey: secretKeyVar(env, databaseUrl),
  };
  return Object.freeze(config);
}
