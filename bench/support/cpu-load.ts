// A load that only burns CPU: bench/webhook-bounds.ts uses it to ask how much of the worker's gap
// the database's CPU alone accounts for (the worker with no database beside a load the size of the
// database's, measured with proc-stat.ts cpuSeconds).
import { type ChildProcess, spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** The slice each burner repeats: busy for share × this, then idle for the rest. */
const PERIOD_MS = 8;

/**
 * Burns `cpus` CPUs' worth of time (0.5: half of one CPU) in child processes that do nothing else,
 * each busy for its share of every 8 ms and asleep for the rest, one child per CPU started. Answers
 * the function that stops them. A burner whose bench is gone (interrupted, killed) stops by itself:
 * its parent changes. `nice` (0–19) lowers the burners' priority.
 */
export function burnCpu(cpus: number, nice = 0): () => void {
  const children: ChildProcess[] = [];
  for (let left = cpus; left > 0.01; left -= 1) {
    const busyMs = PERIOD_MS * Math.min(left, 1);
    const code = `const parent = process.ppid; setInterval(() => { if (process.ppid !== parent) process.exit();
      const t = performance.now(); while (performance.now() - t < ${busyMs}); }, ${PERIOD_MS});`;
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
    if (nice !== 0) setPriority(child.pid!, nice);
    children.push(child);
  }
  return () => {
    for (const child of children) child.kill();
  };
}
