// The mixed load of the database-fault test and benchmark: list reads and guest pushes (each new
// guest queues a guest.created webhook) against a running `repute serve` for a while, while every
// PostgreSQL backend with a given application_name is terminated at a fixed interval.
import type pg from 'pg';
import { type Answer, guestPush, listReviews } from './repute-processes.ts';

export interface FaultLoadOptions {
  base: string;
  readKey: string;
  pushKey: string;
  propertyId: string;
  /** A connection of its own (not one the faults terminate) that runs pg_terminate_backend. */
  admin: pg.Client;
  /** Whose backends are terminated. */
  applicationName: string;
  seconds: number;
  everyMs: number;
  /** Concurrent request loops, half reading and half pushing. */
  connections: number;
}

export interface TimedAnswer extends Answer {
  kind: 'read' | 'push';
  /** performance.now() when the request was sent. */
  started: number;
}

export interface FaultLoadResult {
  answers: TimedAnswer[];
  /** E-mails of the pushes answered 2xx. */
  pushed: string[];
  /** performance.now() of each fault. */
  faults: number[];
  terminated: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFaultLoad(o: FaultLoadOptions): Promise<FaultLoadResult> {
  const answers: TimedAnswer[] = [];
  const pushed: string[] = [];
  const faults: number[] = [];
  let terminated = 0;
  let loading = true;
  let n = 0;
  const started = performance.now();
  const killer = async () => {
    while (loading) {
      await sleep(o.everyMs);
      if (!loading) break;
      faults.push(performance.now());
      const { rows } = await o.admin.query<{ n: number }>(
        'select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1) k', [o.applicationName]);
      terminated += rows[0]!.n;
    }
  };
  const loop = async (kind: 'read' | 'push') => {
    while (loading) {
      const at = performance.now();
      if (kind === 'read') answers.push({ kind, started: at, ...(await listReviews(o.base, o.readKey)) });
      else {
        const email = `fault-${process.pid}-${n++}@example.com`;
        const answer = await guestPush(o.base, o.pushKey, o.propertyId, email);
        answers.push({ kind, started: at, ...answer });
        if (answer.status >= 200 && answer.status < 300) pushed.push(email);
      }
    }
  };
  const running = [killer(), ...Array.from({ length: Math.max(2, o.connections) }, (_, i) => loop(i % 2 === 0 ? 'read' : 'push'))];
  await sleep(o.seconds * 1000);
  loading = false;
  await Promise.all(running);
  return { answers, pushed, faults, terminated, seconds: (performance.now() - started) / 1000 };
}
