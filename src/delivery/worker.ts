// The delivery worker: claims due deliveries under a lease, signs and sends them, and records every
// attempt. Bounded: at most `concurrency` deliveries in hand and `perEndpoint` requests in flight to
// one endpoint, so an endpoint that hangs until its time-out holds only its own slots. Results are
// written in batches (group commit); claims are woken by the outbox signal, by results, by retry
// timers and by a WEBHOOK_POLL_MS poll. stop() finishes the attempts in flight and writes them.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Database } from '../db/connect.ts';
import type { OutboxSignal } from '../events/signal.ts';
import { type Lookup, parseAllowList } from './address-guard.ts';
import { attempter } from './attempt.ts';
import { type BreakerOptions, createBreaker, DEFAULT_BREAKER } from './breaker.ts';
import { type AttemptRecord, type ClaimedDelivery, deliveryStore } from './repository.ts';
import { isSuccess } from './schedule.ts';
import { createSender } from './sender.ts';

export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_PER_ENDPOINT = 16;
/** A lease outlives the attempt's time-out by this much, so a live worker never loses one. */
const LEASE_MARGIN_MS = 5000;
const FLUSH_BATCH = 1000;
const RETRY_DELAY_MS = 500;

export interface WorkerLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerDeps {
  database: Database;
  config: Config;
  log: WorkerLog;
  /** The in-process outbox signal: a commit of events wakes the worker at once. */
  outbox?: OutboxSignal;
}

export interface WorkerOptions {
  concurrency?: number;
  perEndpoint?: number;
  /** The resolver of the address guard (tests); the system's by default. */
  lookup?: Lookup;
  breaker?: BreakerOptions;
}

export interface DeliveryWorker {
  /** Look for due deliveries now. */
  wake(): void;
  /** Stop claiming, finish and record the attempts in flight. */
  stop(): Promise<void>;
  readonly stats: { attempts: number; delivered: number; failedAttempts: number };
}

export function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): DeliveryWorker {
  const { config, log } = deps;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perEndpoint = Math.min(options.perEndpoint ?? DEFAULT_PER_ENDPOINT, concurrency);
  const store = deliveryStore(deps.database);
  const sender = createSender({ timeoutMs: config.webhookTimeoutMs, allow: parseAllowList(config.webhookAllowPrivate), lookup: options.lookup });
  const breaker = createBreaker(options.breaker ?? DEFAULT_BREAKER);
  const schedule = config.webhookRetryScheduleS;
  const attempt = attempter(config, sender);
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const stats = { attempts: 0, delivered: 0, failedAttempts: 0 };

  let stopped = false;
  let stopping: Promise<void> | null = null;
  let claimSeq = 0;
  let held = 0; // claimed and not yet recorded
  const inFlight = new Map<string, number>(); // endpoint → requests in flight
  const running = new Set<Promise<void>>();
  const results: AttemptRecord[] = [];

  // --- claiming -----------------------------------------------------------------------------
  let claiming: Promise<void> | null = null;
  let claimAgain = false;

  const wake = () => {
    if (stopped) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = new Promise<void>((resolve) => setImmediate(resolve)).then(claimLoop).finally(() => {
      claiming = null;
      // A wake that came in after the loop's last look is not lost.
      if (claimAgain) wake();
    });
  };

  async function claimLoop(): Promise<void> {
    do {
      claimAgain = false;
      const limit = concurrency - held;
      if (stopped || limit <= 0) return;
      const now = Date.now();
      const room = new Map<string, number>();
      const excluded: string[] = [];
      for (const [id, n] of breaker.limited(perEndpoint, now)) room.set(id, n);
      for (const [id, n] of inFlight) room.set(id, (room.get(id) ?? perEndpoint) - n);
      for (const [id, n] of room) if (n <= 0) excluded.push(id);
      for (const id of excluded) room.delete(id);
      let claimed: ClaimedDelivery[];
      try {
        claimed = await store.claim({
          now: new Date(now).toISOString(),
          firstAttemptCutoff: new Date(now - (schedule[0] ?? 0) * 1000).toISOString(),
          leaseUntil: new Date(now + config.webhookTimeoutMs + LEASE_MARGIN_MS).toISOString(),
          owner: `${workerId}:${++claimSeq}`,
          limit, perEndpoint, room, excluded,
        });
      } catch (error) {
        if (!stopped) log.warn({ err: error }, 'webhook worker: claiming deliveries failed; retrying');
        claimAgain = false; // retry after a pause, not in a tight loop
        wakeAt(Date.now() + RETRY_DELAY_MS);
        return;
      }
      for (const delivery of claimed) begin(delivery);
    } while (claimAgain && !stopped);
  }

  // --- attempts -----------------------------------------------------------------------------
  function begin(delivery: ClaimedDelivery): void {
    held += 1;
    inFlight.set(delivery.endpointId, (inFlight.get(delivery.endpointId) ?? 0) + 1);
    const task = deliver(delivery).finally(() => running.delete(task));
    running.add(task);
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const { record, outcome } = await attempt(d);
    const left = (inFlight.get(d.endpointId) ?? 1) - 1;
    if (left > 0) inFlight.set(d.endpointId, left);
    else inFlight.delete(d.endpointId);

    const ok = isSuccess(outcome.statusCode);
    breaker.result(d.endpointId, ok, Date.now());
    stats.attempts += 1;
    if (ok) stats.delivered += 1;
    else {
      stats.failedAttempts += 1;
      log.debug({ delivery: d.id, endpoint: d.endpointId, status: outcome.statusCode, error: outcome.error }, 'webhook attempt failed');
    }
    results.push(record);
    flush();
    wake();
  }

  // --- recording (group commit) -------------------------------------------------------------
  let flushing: Promise<void> | null = null;

  function flush(): Promise<void> {
    flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(flushLoop).finally(() => {
      flushing = null;
      if (results.length > 0 && !stopped) flush();
    });
    return flushing;
  }

  async function flushLoop(): Promise<void> {
    while (results.length > 0) {
      const batch = results.splice(0, FLUSH_BATCH);
      try {
        await store.record(batch);
      } catch (error) {
        // The leases still hold: keep the results and write them again shortly.
        results.unshift(...batch);
        log.warn({ err: error }, 'webhook worker: recording attempts failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        if (stopped) return;
        continue;
      }
      held -= batch.length;
      let earliest = Infinity;
      for (const r of batch) if (r.status === 'pending') earliest = Math.min(earliest, Date.parse(r.nextAttemptAt));
      // A hair late, so the claim's clock has certainly passed the due time.
      if (earliest < Infinity) wakeAt(earliest + 2);
      const probe = breaker.nextProbeAt(Date.now());
      if (probe !== null) wakeAt(probe);
      wake();
    }
  }

  // --- timers -------------------------------------------------------------------------------
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;

  function wakeAt(at: number): void {
    if (stopped || at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = null;
      timerAt = Infinity;
      wake();
    }, Math.max(0, at - Date.now()));
  }

  const poll = setInterval(wake, config.webhookPollMs);
  deps.outbox?.on('committed', wake);
  wake();

  return {
    wake,
    stats,
    stop() {
      stopping ??= shutdown();
      return stopping;
    },
  };

  async function shutdown(): Promise<void> {
    stopped = true;
    clearInterval(poll);
    if (timer) clearTimeout(timer);
    deps.outbox?.off('committed', wake);
    await claiming;
    await Promise.allSettled([...running]);
    // Write what the last attempts found; a few tries, then the leases expire and another worker resends.
    for (let i = 0; i < 5 && results.length > 0; i++) {
      await flushing;
      try {
        const batch = results.splice(0, results.length);
        await store.record(batch).catch((error: unknown) => {
          results.unshift(...batch);
          throw error;
        });
      } catch (error) {
        log.warn({ err: error }, 'webhook worker: recording attempts at shutdown failed');
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      }
    }
    await flushing;
    await sender.close();
  }
}
