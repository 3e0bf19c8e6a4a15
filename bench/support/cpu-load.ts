// CPU time of processes on this machine, and a load that only burns CPU: bench/webhook-bounds.ts
// uses them to ask how much of the worker's gap the database's CPU alone accounts for (the worker
// with no database beside a load the size of the database's). Linux only (/proc).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on every Linux build in use). */
const TICKS_PER_S = 100;

/** User and system CPU seconds used so far by the processes still running (a PostgreSQL backend may end). */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid …": utime and stime are the 14th and 15th fields; comm may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS_PER_S;
}

/** The slice each burner repeats: busy for share × this, then idle for the rest. */
const PERIOD_MS = 8;

/**
 * Burns `cpus` CPUs' worth of time (0.5: half of one CPU) in child processes that do nothing else,
 * each busy for its share of every 8 ms and asleep for the rest, one child per CPU started. Answers
 * the function that stops them. A burner whose bench is gone (interrupted, killed) stops by itself:
 * its parent changes.
 */
export function burnCpu(cpus: number): () => void {
  const children: ChildProcess[] = [];
  for (let left = cpus; left > 0.01; left -= 1) {
    const busyMs = PERIOD_MS * Math.min(left, 1);
    const code = `const parent = process.ppid; setInterval(() => { if (process.ppid !== parent) process.exit();
      const t = performance.now(); while (performance.now() - t < ${busyMs}); }, ${PERIOD_MS});`;
    children.push(spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
  }
  return () => {
    for (const child of children) child.kill();
  };
}
