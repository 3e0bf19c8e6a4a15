#!/usr/bin/env node
// Compiles src/ (TypeScript) into dist/ with esbuild: one ESM entry (dist/main.js) plus chunks that
// load on demand, so `repute --help` does not load the server, the database drivers or the
// validators. Run by `npm install` (prepare) and before `npm test`; bin/repute.mjs also runs it
// when a source file is newer than dist/main.js. Safe to run by several processes at once: every
// file is written beside its target and renamed over it, chunk names carry a content hash, and
// dist/main.js is written last.
import { readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
export const ENTRY_OUT = join(DIST, 'main.js');
/** Chunks no build has produced for this long are deleted (a process started earlier may still load its own). */
const STALE_CHUNK_MS = 60 * 60 * 1000;

/** The newest modification time (ms) of the sources (TypeScript and bundled JSON). */
export function newestSource() {
  let newest = 0;
  for (const file of readdirSync(SRC, { recursive: true })) {
    // .json too: the insights lexicons (src/extraction/lexicons/) are bundled into the build.
    if (file.endsWith('.ts') || file.endsWith('.json')) newest = Math.max(newest, statSync(join(SRC, file)).mtimeMs);
  }
  return newest;
}

/** True when dist/main.js is missing or older than a source file (a copy of dist/ without src/ is never stale). */
export function isStale() {
  let built;
  try {
    built = statSync(ENTRY_OUT).mtimeMs;
  } catch {
    return true;
  }
  try {
    return built < newestSource();
  } catch {
    return false;
  }
}

export async function build() {
  const started = new Date();
  const { build: esbuild } = await import('esbuild');
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/main.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: DIST,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(join(DIST, 'chunks'), { recursive: true });
  const entry = result.outputFiles.filter((f) => f.path === ENTRY_OUT || f.path === `${ENTRY_OUT}.map`);
  for (const file of [...result.outputFiles.filter((f) => !entry.includes(f)), ...entry]) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  // Stamped with the build's start: a source saved during the build still counts as newer.
  utimesSync(ENTRY_OUT, started, started);
  const written = new Set(result.outputFiles.map((f) => f.path));
  for (const name of readdirSync(join(DIST, 'chunks'))) {
    // Another build's file in flight (written, then renamed) is not ours to judge.
    if (name.endsWith('.tmp')) continue;
    const path = join(DIST, 'chunks', name);
    if (written.has(path)) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_CHUNK_MS) unlinkSync(path);
    } catch (error) {
      // Another build may remove the same stale chunk between the listing and here.
      if (error.code !== 'ENOENT') throw error;
    }
  }
  return relative(ROOT, ENTRY_OUT);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build();
}
