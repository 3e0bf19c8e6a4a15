// The delivery worker: claims due deliveries under a lease, signs and sends them, and records every
// attempt. Bounded: at most `concurrency` requests in flight and `perEndpoint` to one endpoint, so an
// endpoint that hangs until its time-out holds only its own slots. Claims run ahead of the sending
// (up to as many again per endpoint wait to start), so a free slot never waits on the database;
// results are written in batches (group commit). Woken by the outbox signal, by results, by retry
// timers and by a WEBHOOK_POLL_MS poll. stop() finishes the attempts in flight and writes them.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Database } from '../db/connect.ts';
import { outageTracker } from '../db/outage.ts';
import type { OutboxSignal } from '../events/signal.ts';
import { type Lookup, parseAllowList } from './address-guard.ts';
import { attempter } from './attempt.ts';
import { type BreakerOptions, createBreaker, DEFAULT_BREAKER } from './breaker.ts';
import { createRecorder } from './recorder.ts';
import { refusalWarner } from './refusal-warning.ts';
import { type ClaimedDelivery, deliveryStore } from './repository.ts';
import { isSuccess } from './schedule.ts';
import { createSender } from './sender.ts';

import { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from './defaults.ts';

export { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from './defaults.ts';
/**
 * A lease covers a wait to start (at most about one time-out: the slots ahead free up by then) and
 * the attempt, plus this margin; an attempt never starts without a time-out's worth of lease left.
 */
const LEASE_MARGIN_MS = 5000;
/** Claims run this many times an endpoint's in-flight allowance ahead (in flight plus waiting). */
const AHEAD = 6;
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
  readonly stats: { attempts: number; delivered: number; failedAttempts: number; claims: number; flushes: number };
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
  const warnIfRefused = refusalWarner(log);
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const stats = { attempts: 0, delivered: 0, failedAttempts: 0, claims: 0, flushes: 0 };
  // While the database is unavailable, claims and writes retry quietly and the worker says so once.
  const outage = outageTracker(log, 'webhook worker');

  let stopped = false;
  let stopping: Promise<void> | null = null;
  let claimSeq = 0;
  let held = 0; // claimed and not yet recorded: waiting, in flight, or awaiting the write
  let active = 0; // requests in flight
  const inFlight = new Map<string, number>(); // endpoint → requests in flight
  const waiting = new Map<string, ClaimedDelivery[]>(); // endpoint → claimed, not started
  const running = new Set<Promise<void>>();
  const count = (map: Map<string, number>, id: string, by: number) => {
    const n = (map.get(id) ?? 0) + by;
    if (n > 0) map.set(id, n);
    else map.delete(id);
  };

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
      const limit = AHEAD * concurrency - held;
      if (stopped || limit <= 0) return;
      const now = Date.now();
      // Room per endpoint: AHEAD times its allowance in flight, less what it has in hand.
      const room = new Map<string, number>();
      const excluded: string[] = [];
      for (const [id, n] of breaker.limited(perEndpoint, now)) room.set(id, AHEAD * n);
      for (const id of new Set([...inFlight.keys(), ...waiting.keys()])) {
        room.set(id, (room.get(id) ?? AHEAD * perEndpoint) - (inFlight.get(id) ?? 0) - (waiting.get(id)?.length ?? 0));
      }
      for (const [id, n] of room) if (n <= 0) excluded.push(id);
      for (const id of excluded) room.delete(id);
      let claimed: ClaimedDelivery[];
      try {
        claimed = await store.claim({
          now: new Date(now).toISOString(),
          firstAttemptCutoff: new Date(now - (schedule[0] ?? 0) * 1000).toISOString(),
          leaseUntil: new Date(now + 2 * config.webhookTimeoutMs + LEASE_MARGIN_MS).toISOString(),
          owner: `${workerId}:${++claimSeq}`,
          limit, perEndpoint: AHEAD * perEndpoint, room, excluded,
        });
      } catch (error) {
        if (!stopped && !outage.failed(error)) log.warn({ err: error }, 'webhook worker: claiming deliveries failed; retrying');
        claimAgain = false; // retry after a pause, not in a tight loop
        wakeAt(Date.now() + RETRY_DELAY_MS);
        return;
      }
      outage.ok();
      stats.claims += 1;
      held += claimed.length;
      for (const d of claimed) {
        const queue = waiting.get(d.endpointId);
        if (queue) queue.push(d);
        else waiting.set(d.endpointId, [d]);
      }
      dispatch();
    } while (claimAgain && !stopped);
  }

  // --- attempts -----------------------------------------------------------------------------
  /** Starts waiting deliveries while slots are free, endpoint by endpoint. */
  function dispatch(): void {
    const now = Date.now();
    const giveBack: ClaimedDelivery[] = [];
    for (const [endpointId, queue] of [...waiting]) {
      const allowance = breaker.allowance(endpointId, perEndpoint, now);
      // An open breaker: hand its deliveries back rather than sit on them for the cool-down.
      if (allowance === 0) giveBack.push(...queue.splice(0));
      let started = false;
      while (queue.length > 0 && active < concurrency && (inFlight.get(endpointId) ?? 0) < allowance) {
        const d = queue.shift()!;
        if (d.leaseUntil - now < config.webhookTimeoutMs + 1000) giveBack.push(d);
        else {
          start(d);
          started = true;
        }
      }
      // Endpoints that just got slots go to the back of the line for the next free ones.
      if (queue.length === 0 || started) waiting.delete(endpointId);
      if (queue.length > 0 && started) waiting.set(endpointId, queue);
    }
    if (giveBack.length > 0) {
      held -= giveBack.length;
      store.release(giveBack, new Date(now).toISOString()).catch((error: unknown) => {
        if (!outage.failed(error)) log.warn({ err: error }, 'webhook worker: giving deliveries back failed; their leases will expire');
      });
    }
  }

  function start(d: ClaimedDelivery): void {
    active += 1;
    count(inFlight, d.endpointId, 1);
    const task = deliver(d).finally(() => running.delete(task));
    running.add(task);
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const { record, outcome } = await attempt(d);
    active -= 1;
    count(inFlight, d.endpointId, -1);
    const ok = isSuccess(outcome.statusCode);
    breaker.result(d.endpointId, ok, Date.now());
    stats.attempts += 1;
    if (ok) stats.delivered += 1;
    else {
      stats.failedAttempts += 1;
      warnIfRefused(d.endpointId, d.url, outcome.error);
      log.debug({ delivery: d.id, endpoint: d.endpointId, status: outcome.statusCode, error: outcome.error }, 'webhook attempt failed');
    }
    recorder.add(record);
    if (!stopped) dispatch();
    // Claim again once this endpoint's waiting line is half gone (not after every attempt: fewer,
    // fuller claims, started early enough that the line does not run dry during the round trip).
    if ((waiting.get(d.endpointId)?.length ?? 0) < ((AHEAD - 1) * perEndpoint) / 2) wake();
  }

  // --- recording -----------------------------------------------------------------------------
  const recorder = createRecorder(store, log, outage, (batch) => {
    // Claims stopped (or shrank) for want of room in hand: this write makes room.
    const wasFull = held > AHEAD * concurrency - 2 * perEndpoint;
    held -= batch.length;
    stats.flushes += 1;
    let earliest = Infinity;
    for (const r of batch) if (r.status === 'pending') earliest = Math.min(earliest, Date.parse(r.nextAttemptAt));
    // A hair late, so the claim's clock has certainly passed the due time.
    if (earliest < Infinity) wakeAt(earliest + 2);
    const probe = breaker.nextProbeAt(Date.now());
    if (probe !== null) wakeAt(probe);
    if (wasFull) wake();
  });

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
    // Deliveries not yet started go back to the queue for the next worker, at once.
    const unstarted = [...waiting.values()].flat();
    waiting.clear();
    await store.release(unstarted, new Date().toISOString()).catch((error: unknown) =>
      log.warn({ err: error }, 'webhook worker: giving deliveries back at shutdown failed; their leases will expire'));
    await Promise.allSettled([...running]);
    // Write what the last attempts found; if that keeps failing, the leases expire and another worker resends.
    await recorder.drain();
    await sender.close();
  }
}
