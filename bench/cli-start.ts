// `repute --help` start-up time: the compiled executable (node bin/repute.mjs, JavaScript built once by
// bin/build.mjs) against the old way, TypeScript transpiled by tsx at each start (node --import tsx
// src/main.ts), in the same run, interleaved so both see the same machine load. Prints median and
// p90 of each and their ratio; the target is a median under 0.4 s. Options: --runs N (default 20).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const RUNS = Number(args.runs);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_S = 0.4;

const WAYS: Record<string, string[]> = {
  'compiled (node bin/repute.mjs --help)': ['bin/repute.mjs', '--help'],
  'tsx (node --import tsx src/main.ts --help)': ['--import', 'tsx', 'src/main.ts', '--help'],
};

function timeOnce(argv: string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, argv, { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0 || !run.stdout.includes('Usage: repute')) throw new Error(`node ${argv.join(' ')} failed (exit ${run.status}): ${run.stderr}`);
  return seconds;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

// One untimed run of each: the build (if stale) and the disk cache are not what is measured.
for (const argv of Object.values(WAYS)) timeOnce(argv);
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(WAYS).map((name) => [name, []]));
for (let i = 0; i < RUNS; i += 1) for (const [name, argv] of Object.entries(WAYS)) samples[name]!.push(timeOnce(argv));

const medians: number[] = [];
console.log(`repute --help, ${RUNS} runs each (interleaved):`);
for (const [name, times] of Object.entries(samples)) {
  const sorted = [...times].sort((a, b) => a - b);
  medians.push(quantile(sorted, 0.5));
  console.log(`  ${name.padEnd(44)} median ${quantile(sorted, 0.5).toFixed(3)} s   p90 ${quantile(sorted, 0.9).toFixed(3)} s`);
}
const [compiled, tsx] = medians as [number, number];
console.log(`  ratio (tsx / compiled, medians): ${(tsx / compiled).toFixed(1)}x; target: compiled median under ${TARGET_S} s: ${compiled < TARGET_S ? 'met' : 'NOT met'}`);
if (compiled >= TARGET_S) process.exitCode = 1;
