// What a newcomer meets first on the command line: `repute --version`, and failures at start (a port
// in use, a database that cannot be reached, a bad option, a missing record) as one line
// `repute: …` naming the cause and the setting, exit status 1 or 2, never a stack trace (except
// with DEBUG=repute).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../support/ports.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { cliEnv, repute, startCli, type CliResult } from './run.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

/** The failure is exactly one line on stderr (nothing else), with this exit status. */
function oneLine(r: CliResult, exitCode: number, what: string): string {
  assert.equal(r.code, exitCode, `${what}: exit ${r.code}, stderr: ${r.stderr}`);
  assert.match(r.stderr, /^repute: [^\n]+\n$/, `${what}: one line on stderr`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
  return r.stderr.trim();
}

function tempSqlite(): { url: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'repute-start-'));
  return { url: `sqlite:${join(dir, 'repute.db')}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

test('repute --version and -V print the package version', async () => {
  for (const flag of ['--version', '-V']) {
    const r = await repute([flag], cliEnv('sqlite::memory:'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${version}\n`);
  }
});

test('a port in use stops serve with one line naming the port, the host and the settings', async () => {
  const db = tempSqlite();
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const r = await repute(['serve'], cliEnv(db.url, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }));
    assert.equal(oneLine(r, 1, 'serve'), `repute: port ${port} on 127.0.0.1 is in use (set PORT or HOST)`);
    // It listens before any worker starts: a server that cannot serve sends no webhook or invitation
    // (the invitations worker's first words, about SMTP_URL, are never said).
    assert.doesNotMatch(r.stdout, /SMTP_URL|worker/i, r.stdout);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
    db.remove();
  }
});

test('an unreachable database stops every command with one line naming DATABASE_URL, the password masked', async () => {
  const port = await freePort(); // nothing listens there
  const url = `postgres://repute:s3cret-pw@127.0.0.1:${port}/repute`;
  const env = cliEnv(url, { PORT: String(await freePort()) });
  const commands = [['serve'], ['migrate'], ['worker'], ['accounts', 'create', '--name', 'X'], ['demo', '--force']];
  const results = await Promise.all(commands.map((args) => repute(args, env)));
  for (const [i, args] of commands.entries()) {
    const line = oneLine(results[i]!, 1, args.join(' '));
    assert.equal(line, `repute: cannot reach the database at DATABASE_URL postgres://repute:***@127.0.0.1:${port}/repute: connection refused`, args.join(' '));
    assert.doesNotMatch(results[i]!.stdout + results[i]!.stderr, /s3cret/);
  }
});

test('a database that accepts the connection and never answers, or hangs up at once: one line naming DATABASE_URL', { timeout: 60_000 }, async () => {
  for (const mode of ['blackhole', 'refuse'] as const) {
    // refuse: the proxy accepts, then closes every connection at once.
    const hole = await startTcpProxy({ host: '127.0.0.1', port: 9 }, mode);
    try {
      const url = `postgres://repute:s3cret-pw@127.0.0.1:${hole.port}/repute`;
      const r = await repute(['migrate'], cliEnv(url));
      const line = oneLine(r, 1, mode);
      assert.match(line, new RegExp(`^repute: cannot reach the database at DATABASE_URL postgres://repute:\\*\\*\\*@127\\.0\\.0\\.1:${hole.port}/repute: `), line);
      assert.doesNotMatch(r.stderr, /s3cret/);
    } finally {
      await hole.close();
    }
  }
});

test('a bad setting, a bad option and a missing record: one line each, exit 1 or 2; DEBUG=repute adds the stack', async () => {
  const db = tempSqlite();
  try {
    const badSetting = await repute(['serve'], cliEnv(db.url, { PORT: 'eighty' }));
    assert.equal(oneLine(badSetting, 1, 'bad PORT'), 'repute: configuration: PORT must be a whole number, got "eighty"');
    const badOption = await repute(['accounts', 'create', '--name', 'X', '--features', 'teleport'], cliEnv(db.url));
    assert.match(oneLine(badOption, 2, 'bad option'), /^repute: --features has unknown feature teleport/);
    const unknownCommand = await repute(['serv'], cliEnv(db.url));
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /^repute: unknown command 'serv'/);
    const missing = await repute(['keys', 'revoke', '01234567-89ab-7def-8123-456789abcdef'], cliEnv(db.url));
    assert.equal(oneLine(missing, 1, 'missing key'), 'repute: api key not found');
    const debug = await repute(['keys', 'revoke', '01234567-89ab-7def-8123-456789abcdef'], cliEnv(db.url, { DEBUG: 'repute' }));
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, /\n\s+at /, 'DEBUG=repute shows the stack');
    assert.match(debug.stderr, /repute: api key not found\n$/);
  } finally {
    db.remove();
  }
});

test('a database migrated by a newer Repute says so (a rolled-back deploy), not "corrupted migrations"', async () => {
  const db = tempSqlite();
  try {
    assert.equal((await repute(['migrate'], cliEnv(db.url))).code, 0);
    const { default: Database } = await import('better-sqlite3');
    const file = new Database(db.url.slice('sqlite:'.length));
    file.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('2099-01-01T0000-from-the-future', new Date().toISOString());
    file.close();
    const r = await repute(['migrate'], cliEnv(db.url));
    assert.equal(oneLine(r, 1, 'migrate'), 'repute: the database was migrated by a newer version of Repute (its migration 2099-01-01T0000-from-the-future is unknown to this one): run that version, or restore a backup taken before the upgrade');
  } finally {
    db.remove();
  }
});

test('a REDIS_URL that does not answer at start is said once, with the password masked; serve runs on', { timeout: 30_000 }, async () => {
  const db = tempSqlite();
  const redisPort = await freePort(); // nothing listens there
  const child = startCli(['serve'], cliEnv(db.url, { PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info', REDIS_URL: `redis://:r3dis-pw@127.0.0.1:${redisPort}/0` }));
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 20_000);
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (/Server listening/.test(out)) { clearTimeout(timer); resolve(); }
      });
    });
    const warning = out.split('\n').find((line) => line.includes('did not answer at start'));
    assert.ok(warning, out);
    assert.match(warning!, new RegExp(`REDIS_URL redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redisPort}/0 did not answer at start: this instance counts rate limits in its own memory until Redis answers`));
    assert.doesNotMatch(out, /r3dis-pw/);
    // Without REPUTE_ADMIN_TOKEN the admin API does not exist on the network (a 404 for every path): said once at start.
    assert.match(out, /the admin API \(\/admin\/v1\) is off: REPUTE_ADMIN_TOKEN is not set/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    db.remove();
  }
});
