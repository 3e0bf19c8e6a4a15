// Operations: /healthz and /readyz, X-Request-Id, structured logs that never carry Authorization,
// graceful shutdown of a real `repute serve` on SIGTERM, and one-line start-up errors for bad config.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect as tcpConnect, createServer, type Socket } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { connect } from '../../src/db/connect.ts';
import { createContext } from '../../src/context.ts';
import { buildApp, fastifyOptions } from '../../src/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN, SECRET_KEY, createTestApp, dialects, freshDatabase, testEnv, type TestApp, type TestDatabase } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { freePort } from '../support/ports.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A second handle on the same database, so a test can close it without touching the fixture's. */
function secondHandle(db: TestDatabase): TestDatabase {
  const database = connect(db.url, db.schema && db.dialect === 'postgres' ? { schema: db.schema, poolSize: 2 } : {});
  return { ...db, database, drop: () => database.destroy() };
}

eachDatabase('GET /healthz answers while the process is up; GET /readyz while the database answers', async (t) => {
  const health = await t.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ready' });

  const handle = secondHandle(t.testDb);
  const other = await createTestApp(t.dialect, { database: handle });
  try {
    assert.equal((await other.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    await handle.database.destroy();
    const down = await other.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(down.statusCode, 503);
    assert.deepEqual(down.json(), { error: 'database not reachable', code: 'database_unavailable' });
    // Liveness does not depend on the database: restarting the process would not help.
    assert.equal((await other.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  } finally {
    await other.close();
  }
});

if (dialects.includes('postgres')) {
  test('GET /readyz answers 503 within seconds when PostgreSQL accepts connections but never answers [postgres]', { timeout: 60_000 }, async () => {
    // A hung database server: it accepts the TCP connection and says nothing.
    const sockets = new Set<Socket>();
    let closing = false;
    const hung = createServer((socket) => {
      if (closing) return void socket.destroy();
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const url = `postgres://repute@127.0.0.1:${(hung.address() as { port: number }).port}/repute`;
    const database = connect(url, { poolSize: 1 });
    const fake: TestDatabase = { dialect: 'postgres', url, schema: null, database, drop: async () => {} };
    const t = await createTestApp('postgres', { database: fake });
    try {
      const started = Date.now();
      const r = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(r.statusCode, 503);
      assert.deepEqual(r.json(), { error: 'database not reachable', code: 'database_unavailable' });
      assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`);
    } finally {
      await t.close();
      closing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
      await database.destroy().catch(() => {});
    }
  });
}

eachDatabase('X-Request-Id: a sane incoming id is kept, anything else replaced by a fresh one, on every answer', async (t) => {
  for (const id of ['abc-123', 'trace:0af7651916cd43dd8448eb211c80319c', 'a.b_c']) {
    const r = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
    assert.equal(r.headers['x-request-id'], id);
  }
  const seen = new Set<string>();
  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '<script>', '']) {
    const r = await t.app.inject({ method: 'GET', url: '/api/v4/whoami', headers: { 'x-request-id': bad } });
    assert.equal(r.statusCode, 401);
    const given = String(r.headers['x-request-id']);
    assert.notEqual(given, bad);
    assert.match(given, /^[0-9a-f-]{36}$/);
    seen.add(given);
  }
  assert.equal(seen.size, 5, 'each answer gets its own fresh id');
  for (const [method, url] of [['GET', '/nope'], ['DELETE', '/api/v4/reviews/x'], ['GET', '/api/v4/openapi.json'], ['OPTIONS', '/api/v4/reviews']] as const) {
    assert.match(String((await t.app.inject({ method, url })).headers['x-request-id']), /^[0-9a-f-]{36}$/, `${method} ${url}`);
  }
  const big = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'x-request-id': 'big-1' }, payload: `{"name":"${'x'.repeat(1024 * 1024)}"}` });
  assert.equal(big.statusCode, 413);
  assert.equal(big.headers['x-request-id'], 'big-1');
});

for (const dialect of dialects) {
  test(`logs are JSON lines with the request id and never the Authorization header [${dialect}]`, async () => {
    const db = await freshDatabase(dialect);
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const config = loadConfig(testEnv(db, { LOG_LEVEL: 'trace' }));
    const ctx = createContext(config, db.database);
    const app = await buildApp(ctx, fastifyOptions('trace', stream));
    await app.ready();
    const t = { app, ctx, admin: (m: string, p: string, b?: unknown) => app.inject({ method: m as 'POST', url: `/admin/v1${p}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: b as object }) };
    try {
      const tree = await createTree(t as unknown as TestApp);
      const key = await createKey(t as unknown as TestApp, tree.accountId, tree.root);
      lines.length = 0;
      const calls = [
        { url: '/api/v4/reviews', authorization: `Bearer ${key}`, id: 'log-ok' },
        { url: '/api/v4/reviews/nope', authorization: `Bearer ${key}`, id: 'log-404' },
        { url: '/api/v4/nodes', authorization: `Bearer ${key.slice(0, -1)}X`, id: 'log-401' },
        { url: '/admin/v1/accounts', authorization: `Bearer ${ADMIN_TOKEN}`, id: 'log-405' },
      ];
      for (const c of calls) await app.inject({ method: 'GET', url: c.url, headers: { authorization: c.authorization, 'x-request-id': c.id } });
      // A request that fails on the server's side logs its cause with the request id.
      await db.database.destroy();
      await app.inject({ method: 'GET', url: '/readyz', headers: { 'x-request-id': 'log-503', authorization: `Bearer ${key}` } });

      const text = lines.join('');
      assert.ok(lines.length >= 10, `${lines.length} lines`);
      assert.ok(!text.includes(key), 'the API key never appears');
      assert.ok(!text.includes(key.slice(4, 30)), 'not even in part');
      assert.ok(!text.includes(ADMIN_TOKEN), 'the admin token never appears');
      const entries = lines.map((l) => JSON.parse(l));
      for (const c of [...calls.map((x) => x.id), 'log-503']) {
        const mine = entries.filter((e) => e.reqId === c);
        assert.ok(mine.some((e) => e.msg === 'incoming request'), `${c}: incoming request logged`);
        assert.ok(mine.some((e) => e.msg === 'request completed' && typeof e.res?.statusCode === 'number'), `${c}: completion logged with status`);
      }
      const cause = entries.find((e) => e.reqId === 'log-503' && e.msg === 'database not reachable');
      assert.ok(cause?.err, 'the cause is logged with the request id');
    } finally {
      await app.close();
      await ctx.rateLimits.close();
      await db.drop().catch(() => {});
    }
  });
}

/** DATABASE_URL of a test database for another process (PostgreSQL: its schema via search_path). */
function childDatabaseUrl(db: TestDatabase): string {
  if (db.dialect === 'sqlite') return db.url;
  return `${db.url}${db.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
}

function runCli(args: string[], env: Record<string, string>): { exited: Promise<{ code: number | null; stdout: string; stderr: string }>; kill(signal: NodeJS.Signals): void } {
  const child = spawn(process.execPath, ['bin/repute.mjs', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { exited, kill: (signal) => child.kill(signal) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Whether a new TCP connection to the port is refused. */
const refused = (port: number) => new Promise<boolean>((resolve) => {
  const socket = tcpConnect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
});

for (const dialect of dialects) {
  test(`SIGTERM: a real \`repute serve\` finishes the request in flight, refuses new connections and exits 0 [${dialect}]`, { timeout: 300_000 }, async () => {
    const db = await freshDatabase(dialect);
    const port = await freePort();
    const server = runCli(['serve'], {
      DATABASE_URL: childDatabaseUrl(db), REPUTE_SECRET_KEY: SECRET_KEY, PORT: String(port), HOST: '127.0.0.1',
      REPUTE_ADMIN_TOKEN: ADMIN_TOKEN, REPUTE_WORKER: 'off', LOG_LEVEL: 'info',
    });
    let socket: Socket | null = null;
    try {
      await until('the server to answer /healthz', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : null), 120_000);
      // The request in flight: its headers are in, its body is still on the way when SIGTERM arrives.
      const body = JSON.stringify({ name: 'Late Hotel Group' });
      socket = tcpConnect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket!.once('connect', () => resolve()));
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      const closed = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
      socket.write(`POST /admin/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`
        + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
      await sleep(300);
      server.kill('SIGTERM');
      await until('new connections to be refused', async () => ((await refused(port)) ? true : null), 10_000);
      assert.equal(answer, '', 'nothing answered before the body is complete');
      socket.write(body.slice(10));
      await until('the answer', async () => (answer.includes('\r\n\r\n') && answer.includes('Late Hotel Group') ? true : null), 10_000);
      assert.match(answer, /^HTTP\/1\.1 201 /);
      const answered = Date.now();
      await closed;
      const { code, stdout } = await server.exited;
      assert.equal(code, 0, stdout.slice(-2000));
      // The finished connection is closed, not kept alive until its time-out holds the process up.
      assert.ok(Date.now() - answered < 15_000, `exited ${Date.now() - answered} ms after the last answer`);
      assert.match(stdout, /signal received/);
      assert.match(stdout, /"msg":"stopped: requests answered, workers stopped, database closed"/, 'the last line says it all finished');
    } finally {
      socket?.destroy();
      server.kill('SIGKILL');
      await server.exited;
      await db.drop();
    }
  });

  test(`a bad configuration value fails \`repute serve\` with one line naming the variable [${dialect}]`, { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'repute-config-'));
    const databaseUrl = dialect === 'sqlite' ? `sqlite:${join(dir, 'repute.db')}` : process.env.TEST_DATABASE_URL!;
    const base = { DATABASE_URL: databaseUrl, REPUTE_SECRET_KEY: SECRET_KEY, PORT: '0' };
    // Each start-up costs a second or more of TypeScript loading: a few cases here, the full table in-process below.
    const cases: [Record<string, string>, string][] = dialect === 'sqlite'
      ? [[{ PORT: 'abc' }, 'PORT'], [{ RATE_LIMIT_MAX: '-1' }, 'RATE_LIMIT_MAX'], [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'], [{ REPUTE_WORKER: 'maybe' }, 'REPUTE_WORKER']]
      : [[{ REPUTE_SECRET_KEY: 'short' }, 'REPUTE_SECRET_KEY'], [{ REPUTE_SECRET_KEY: '' }, 'REPUTE_SECRET_KEY'], [{ PORT: '80\n81' }, 'PORT']];
    try {
      const results = await Promise.all(cases.map(async ([env, name]) => ({ env, name, ...(await runCli(['serve'], { ...base, ...env }).exited) })));
      for (const { env, name, code, stdout, stderr } of results) {
        const where = JSON.stringify(env);
        assert.notEqual(code, 0, where);
        assert.equal(stdout, '', `${where}: nothing on stdout`);
        const lines = stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, `${where}: one line, got ${stderr}`);
        assert.match(lines[0]!, new RegExp(`^repute: configuration: ${name} `), where);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`loadConfig refuses every bad value with one line naming the variable [${dialect}]`, () => {
    const databaseUrl = dialect === 'sqlite' ? 'sqlite::memory:' : process.env.TEST_DATABASE_URL!;
    const base = { DATABASE_URL: databaseUrl, REPUTE_SECRET_KEY: SECRET_KEY };
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'abc' }, 'PORT'], [{ PORT: '70000' }, 'PORT'], [{ PORT: '-1' }, 'PORT'], [{ PORT: '80\n81' }, 'PORT'],
      [{ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX'], [{ RATE_LIMIT_MAX: '1e3' }, 'RATE_LIMIT_MAX'], [{ RATE_LIMIT_WINDOW_S: '1.5' }, 'RATE_LIMIT_WINDOW_S'],
      [{ RATE_LIMIT_WINDOW_S: '86401' }, 'RATE_LIMIT_WINDOW_S'], [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
      [{ REPUTE_WORKER: 'maybe' }, 'REPUTE_WORKER'], [{ REPUTE_SECRET_KEY: 'short' }, 'REPUTE_SECRET_KEY'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'], [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
      [{ WEBHOOK_RETRY_SCHEDULE_S: '0,five' }, 'WEBHOOK_RETRY_SCHEDULE_S'], [{ WEBHOOK_POLL_MS: '0' }, 'WEBHOOK_POLL_MS'],
      [{ WEBHOOK_TIMEOUT_MS: 'soon' }, 'WEBHOOK_TIMEOUT_MS'], [{ WEBHOOK_ENDPOINT_LIMIT: '-5' }, 'WEBHOOK_ENDPOINT_LIMIT'], [{ WEBHOOK_RETENTION_DAYS: '-1' }, 'WEBHOOK_RETENTION_DAYS'],
      [{ WEBHOOK_RETRY_SCHEDULE_S: '0x10,1e3' }, 'WEBHOOK_RETRY_SCHEDULE_S'], [{ MAIL_RETRY_SCHEDULE_S: '60,-5' }, 'MAIL_RETRY_SCHEDULE_S'],
      [{ HOST: 'not a host' }, 'HOST'], [{ MAIL_DIR: '/etc/passwd/mail' }, 'MAIL_DIR'], [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
      // Addresses the drivers would refuse later with a bare "Invalid URL", or (a database "abc") crash on.
      [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:99999/test' }, 'DATABASE_URL'], [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:abc/test' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'redis://127.0.0.1:6379/abc' }, 'REDIS_URL'], [{ REDIS_URL: 'redis://127.0.0.1:notaport' }, 'REDIS_URL'], [{ REDIS_URL: 'redis://:@' }, 'REDIS_URL'],
      [{ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1, not-an-ip' }, 'WEBHOOK_ALLOW_PRIVATE'],
      ...(dialect === 'postgres' ? [[{ REPUTE_SECRET_KEY: '' }, 'REPUTE_SECRET_KEY'] as [Record<string, string>, string]] : []),
    ];
    for (const [env, name] of cases) {
      assert.throws(() => loadConfig({ ...base, ...env }), (error: Error) => {
        assert.equal(error.name, 'Error');
        assert.ok(error.message.startsWith(`${name} `), `${JSON.stringify(env)}: ${error.message}`);
        assert.ok(!error.message.includes('\n'), 'one line');
        return true;
      }, JSON.stringify(env));
    }
    assert.equal(loadConfig(base).rateLimitMax, 120);
    // A password never reaches the line, even one with an unencoded @.
    assert.throws(() => loadConfig({ ...base, DATABASE_URL: 'postgres://repute:s3cr@et@127.0.0.1:99999/x' }), (error: Error) => {
      assert.ok(error.message.endsWith('"postgres://repute:***@127.0.0.1:99999/x"'), error.message);
      return true;
    });
    // An SMTP_URL that cannot be parsed says what to check, the password masked.
    assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://mailer:s3cret@mail.example.com:99999' }), (error: Error) => {
      assert.match(error.message, /^SMTP_URL is not a valid smtp:\/\/ or smtps:\/\/ address \(check the port, 1 to 65535, and percent-encode special characters of the password\): "smtp:\/\/mailer:\*\*\*@mail\.example\.com:99999"/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    });
    assert.equal(loadConfig({ ...base, REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl, 'redis://127.0.0.1:6379/2');
    // Empty counts as unset, for the schedules too.
    assert.deepEqual(loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE_S: '', MAIL_RETRY_SCHEDULE_S: ' ' }).mailRetryScheduleS, [60, 300, 1800, 7200, 21600]);
    assert.deepEqual(loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE_S: '0, 2.5,60' }).webhookRetryScheduleS, [0, 2.5, 60]);
  });
}

test('embedded mode: a damaged secret.key stops start-up naming the file; a bad value elsewhere writes no key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'repute-key-'));
  try {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'data', 'repute.db')}` };
    assert.throws(() => loadConfig({ ...env, RATE_LIMIT_MAX: 'abc' }), /^Error: RATE_LIMIT_MAX /);
    assert.equal(existsSync(join(dir, 'data', 'secret.key')), false, 'nothing written before every value passed');
    assert.equal(loadConfig(env).secretKey.length, 32);
    writeFileSync(join(dir, 'data', 'secret.key'), 'hello\n');
    assert.throws(() => loadConfig(env), (error: Error) => {
      assert.match(error.message, /secret\.key must hold 32 bytes, base64-encoded, as repute wrote it; it holds 3 \(restore it from a backup\)$/);
      return true;
    });
    // A folder that cannot be made (here: below a file) is said in terms of DATABASE_URL.
    assert.throws(() => loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'data', 'secret.key', 'sub', 'repute.db')}` }), (error: Error) => {
      assert.match(error.message, /^DATABASE_URL names a folder that cannot hold the generated secret\.key \(mkdir .*: ENOTDIR\): choose a folder this user may write, or set REPUTE_SECRET_KEY$/);
      return true;
    });
    // A folder under a pseudo file system: refused at once (Node's recursive mkdir never returned there), naming the level refused.
    assert.throws(() => loadConfig({ DATABASE_URL: 'sqlite:/proc/repute-nowhere/data/repute.db' }), (error: Error) => {
      assert.match(error.message, /^DATABASE_URL names a folder that cannot hold the generated secret\.key \(mkdir \/proc\/repute-nowhere: ENOENT\)/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
