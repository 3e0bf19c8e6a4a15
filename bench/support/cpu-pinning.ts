// Placing the benches' processes on CPUs (taskset, every thread of a process): bench/floor.ts keeps
// its two servers off the load generator's CPUs, and bench/webhooks.ts --database-cpu gives
// PostgreSQL a CPU of its own. Linux only, and only for processes on this machine.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const cpuCount = (): number => Number(execFileSync('nproc').toString().trim());

/** Pins every thread of the process to the CPUs (a taskset list: "1", "0-2"). */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Pins each process that is still running (a backend may end between the listing and the pinning). */
export function pinRunning(pids: readonly number[], cpus: string): void {
  for (const pid of pids) {
    try {
      pinProcess(pid, cpus);
    } catch (error) {
      if (existsSync(`/proc/${pid}`)) throw error;
    }
  }
}

/** The parent's pid, from /proc/<pid>/stat ("pid (comm) state ppid …"; comm may hold spaces). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null; // gone meanwhile
  }
}

/** The postmaster of the PostgreSQL server that runs the backend `backendPid` (SELECT pg_backend_pid()). */
export function postmasterOf(backendPid: number): number {
  const postmaster = parentOf(backendPid);
  if (postmaster === null) throw new Error(`PostgreSQL backend ${backendPid} is not a process on this machine`);
  return postmaster;
}

/** The process and its children (a postmaster and its backends: later ones fork from it and inherit its CPUs). */
export function withChildren(pid: number): number[] {
  return [pid, ...readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((child) => parentOf(child) === pid)];
}
