// What /proc says of a process on this machine (Linux only): its parent and the CPU time it has used
// (/proc/<pid>/stat), and how long it waited for a CPU (/proc/<pid>/schedstat). The benches' one
// reader of those files (bench/floor.ts, bench/webhook-bounds.ts, the CPU pinning of
// bench/support/cpu-pinning.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of the file's CPU times. */
const TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** The fields after "pid (comm) ", from the state on (comm may hold spaces and parentheses); null once the process is gone. */
function fieldsOf(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The parent's pid, or null once the process is gone. */
export function parentOf(pid: number): number | null {
  const fields = fieldsOf(pid);
  return fields === null ? null : Number(fields[1]);
}

/** User and system CPU seconds used so far by the processes still running (a PostgreSQL backend may end). */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = fieldsOf(pid);
    // utime and stime: the 14th and 15th fields of the file.
    if (fields !== null) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_S;
}

/**
 * Seconds the process's main thread has spent so far runnable but waiting for a CPU (the run-queue
 * delay of /proc/<pid>/schedstat), or 0 once the process is gone. For a Node.js process that is
 * its event loop's thread.
 */
export function runQueueSeconds(pid: number): number {
  try {
    const [, waitedNs] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ');
    return Number(waitedNs) / 1e9;
  } catch {
    return 0;
  }
}
