// Runs the real `repute` executable (node bin/repute.mjs) as a child process against a test database.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SECRET_KEY, type TestDatabase } from '../support/app.ts';

const BIN = fileURLToPath(new URL('../../bin/repute.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The DATABASE_URL a separate process needs to reach the test database (PostgreSQL: its schema via search_path). */
export function cliDatabaseUrl(db: TestDatabase): string {
  if (db.dialect === 'sqlite') return db.url;
  return `${db.url}${db.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
}

/** Only what the CLI needs: no admin token, nothing inherited from the test runner's environment. */
export function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', ...extra };
}

export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

export async function repute(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => { stdout += c; });
  child.stderr!.on('data', (c) => { stderr += c; });
  child.stdin!.end(stdin ?? '');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

/** A CLI call that must succeed and print JSON. */
export async function reputeJson(args: string[], env: Record<string, string>, stdin?: string): Promise<any> {
  const r = await repute(args, env, stdin);
  if (r.code !== 0) throw new Error(`repute ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
