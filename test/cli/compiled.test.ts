// The `repute` executable runs JavaScript compiled once (at `npm install`, by bin/build.mjs) instead of
// transpiling TypeScript at every start, and compiles again when a source file is newer than the output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A copy of the project (bin, src, package.json; node_modules linked) with no compiled output yet. */
function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'repute-build-'));
  for (const part of ['bin', 'src', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const run = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(dir, 'bin', 'repute.mjs'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });

test('the executable runs the compiled output, rebuilt when a source is newer, and needs no sources once built', () => {
  const dir = copyProject();
  try {
    const first = run(dir, '--help');
    assert.equal(first.status, 0, first.stderr);
    assert.ok(existsSync(join(dir, 'dist', 'main.js')), 'dist/main.js compiled');
    assert.match(first.stdout, /Repute: reputation and guest-feedback service/);

    // A developer's edit is picked up at the next start: no stale output.
    const main = join(dir, 'src', 'main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace('Repute: reputation and guest-feedback service', 'Repute (edited): reputation service'));
    const edited = run(dir, '--help');
    assert.equal(edited.status, 0, edited.stderr);
    assert.match(edited.stdout, /Repute \(edited\): reputation service/);

    // The compiled output stands on its own: TypeScript is not needed at run time.
    renameSync(join(dir, 'src'), join(dir, 'src.away'));
    const alone = run(dir, '--help');
    assert.equal(alone.status, 0, alone.stderr);
    assert.match(alone.stdout, /Repute \(edited\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
