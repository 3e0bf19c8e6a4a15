// SIGTERM to `npm run demo` (as a process manager or `kill` sends it) stops the server: npm passes
// the signal to the shell it started, and that shell must be the server itself (`exec`), or the
// server would be left running, orphaned, still holding its port.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SECRET_KEY } from '../support/app.ts';
import { freePort } from '../support/ports.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const listening = (port: number): Promise<boolean> => new Promise((resolve) => {
  const socket = tcpConnect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

test('SIGTERM to npm run demo stops the server it started: no process left, the port free', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'repute-demo-signal-'));
  const port = await freePort();
  const npm = spawn('npm', ['run', '--silent', 'demo'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: `sqlite:${join(dir, 'repute.db')}`,
      REPUTE_SECRET_KEY: SECRET_KEY, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  npm.stderr!.on('data', (c) => { err += c; });
  const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
  let serverPid: number | null = null;
  try {
    // The server's pid is in its JSON log lines (pino's "pid").
    serverPid = await new Promise<number>((resolve, reject) => {
      npm.stdout!.on('data', (c) => {
        out += c;
        const pid = /"pid":(\d+)/.exec(out)?.[1];
        if (out.includes('Serving the API on') && pid) resolve(Number(pid));
      });
      npm.on('exit', (code) => reject(new Error(`npm run demo exited ${code}: ${err}\n${out}`)));
    });
    assert.notEqual(serverPid, npm.pid);
    assert.equal(await listening(port), true);
    npm.kill('SIGTERM');
    await exited;
    const deadline = Date.now() + 10_000;
    while (alive(serverPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(alive(serverPid), false, `the server (pid ${serverPid}) still runs after SIGTERM to npm`);
    assert.equal(await listening(port), false, `port ${port} still answers`);
    assert.match(out, /"msg":"signal received"/);
  } finally {
    if (serverPid !== null && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    npm.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
