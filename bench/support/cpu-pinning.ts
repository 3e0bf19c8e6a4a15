// Placing the benches' processes on CPUs (taskset, every thread of a process): bench/floor.ts keeps
// its two servers off the load generator's CPUs, and bench/webhooks.ts --database-cpu gives
// PostgreSQL a CPU of its own; postgresProcesses also serves bench/webhook-bounds.ts, which reads their
// CPU time. Linux only, and only for processes on this machine.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { parentOf } from './proc-stat.ts';

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

/**
 * The processes of the PostgreSQL server behind `db`, as a function to call each time they are
 * needed (backends come and go): its postmaster, found as the parent of this connection's backend,
 * and every child of it. Throws when that server does not run on this machine.
 */
export async function postgresProcesses(db: Kysely<any>): Promise<() => number[]> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  const backend = rows[0]!.pid;
  const postmaster = parentOf(backend);
  if (postmaster === null) throw new Error(`PostgreSQL backend ${backend} is not a process on this machine`);
  return () => withChildren(postmaster);
}

/** The process and its children (a postmaster and its backends: later ones fork from it and inherit its CPUs). */
function withChildren(pid: number): number[] {
  return [pid, ...readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((child) => parentOf(child) === pid)];
}
