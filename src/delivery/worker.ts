// The delivery worker: claims due deliveries under a lease, signs and sends them, and records every
// attempt. Bounded: at most `concurrency` requests in flight and `perEndpoint` to one endpoint, so an
// endpoint that hangs until its time-out holds only its own slots. Claims run ahead of the sending
// (slots.ts: up to AHEAD times an endpoint's slots in hand, fewer for an endpoint whose attempts are
// slow), so a free slot never waits on the database;
// results are written in batches (group commit). Woken by the database's commit signal (src/db/
// transaction.ts), by results, by retry timers and by a WEBHOOK_POLL_MS poll. stop() finishes the attempts in flight and writes them.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import Denque from 'denque';
import type { Config } from '../config.ts';
import type { CommitSignal } from '../db/commit-signal.ts';
import { outageTracker } from '../db/outage.ts';
import type { Log } from '../lib/log.ts';
import { isoAt, nowIso } from '../lib/time.ts';
import { parseAllowList } from '../lib/allow-list.ts';
import type { Lookup } from './address-guard.ts';
import { attempter } from './attempt.ts';
import { type BreakerOptions, createBreaker, DEFAULT_BREAKER } from './breaker.ts';
import { createRecorder } from './recorder.ts';
import { refusalWarner } from './refusal-warning.ts';
import { sealedWait } from './sealed-wait.ts';
import { isSuccess } from './schedule.ts';
import { aheadFor, AHEAD, claimLimit, claimPerEndpoint, claimRoom, claimsWereFull, lineRunningLow } from './slots.ts';
import type { ClaimedDelivery, DeliveryStore } from './store.ts';
import { createSender } from './sender.ts';

import { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from './defaults.ts';

export { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from './defaults.ts';
/**
 * A lease covers a wait to start (at most about one time-out: the slots ahead free up by then) and
 * the attempt, plus this margin; an attempt never starts without a time-out's worth of lease left.
 */
const LEASE_MARGIN_MS = 5000;
const RETRY_DELAY_MS = 500;
/** Weight of the newest attempt in an endpoint's running mean attempt time (pacing its claims). */
const PACE_WEIGHT = 0.2;
/** Endpoints whose attempt time is kept; forgotten all at once when more (a worker sends to far fewer). */
const PACES_KEPT = 10_000;

export interface WorkerDeps {
  /** The database's delivery store (src/stores.ts). */
  store: DeliveryStore;
  /** The database's commit signal: a commit of events in this process wakes the worker at once. */
  commits: CommitSignal;
  config: Config;
  log: Log;
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
  const store = deps.store;
  const sender = createSender({ timeoutMs: config.webhookTimeoutMs, allow: parseAllowList(config.webhookAllowPrivate), lookup: options.lookup });
  const breaker = createBreaker(options.breaker ?? DEFAULT_BREAKER);
  const schedule = config.webhookRetryScheduleS;
  const attempt = attempter(config, sender);
  const warnIfRefused = refusalWarner(log);
  const sealed = sealedWait(log);
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
  const attemptMs = new Map<string, number>(); // endpoint → running mean time of its attempts
  const paced = new Map<string, number>(); // endpoint → waves ahead, where fewer than AHEAD (slots.ts aheadFor)
  /** Folds an attempt's time into its endpoint's mean and sets how many waves ahead it is claimed. */
  const pace = (endpointId: string, durationMs: number) => {
    const mean = attemptMs.get(endpointId);
    if (mean === undefined && attemptMs.size >= PACES_KEPT) {
      attemptMs.clear();
      paced.clear();
    }
    const next = mean === undefined ? durationMs : mean + PACE_WEIGHT * (durationMs - mean);
    attemptMs.set(endpointId, next);
    const waves = aheadFor(next, config.webhookTimeoutMs);
    if (waves < AHEAD) paced.set(endpointId, waves);
    else paced.delete(endpointId);
  };
  // endpoint → claimed, not started, oldest first (a deque: Array#shift moved the whole line and cost
  // about 1.3 µs a delivery, bench/webhooks.ts)
  const waiting = new Map<string, Denque<ClaimedDelivery>>();
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
      const limit = claimLimit(concurrency, held);
      if (stopped || limit <= 0) return;
      const now = Date.now();
      const inHand = new Map(inFlight);
      for (const [id, queue] of waiting) inHand.set(id, (inHand.get(id) ?? 0) + queue.length);
      const { room, excluded: full } = claimRoom(perEndpoint, breaker.limited(perEndpoint, now), inHand, paced);
      const unopened = sealed.excluded(now);
      const excluded = unopened.length === 0 ? full : [...full, ...unopened];
      let claimed: ClaimedDelivery[];
      try {
        claimed = await store.claim({
          now: isoAt(now),
          firstAttemptCutoff: isoAt(now - (schedule[0] ?? 0) * 1000),
          leaseUntil: isoAt(now + 2 * config.webhookTimeoutMs + LEASE_MARGIN_MS),
          owner: `${workerId}:${++claimSeq}`,
          limit, perEndpoint: claimPerEndpoint(perEndpoint), room, excluded,
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
        else waiting.set(d.endpointId, new Denque([d]));
      }
      dispatch();
    } while (claimAgain && !stopped);
  }

  // --- attempts -----------------------------------------------------------------------------
  /** Starts waiting deliveries while slots are free, endpoint by endpoint. */
  function dispatch(): void {
    const now = Date.now();
    const giveBack: ClaimedDelivery[] = [];
    const toBack: string[] = [];
    for (const [endpointId, queue] of waiting) {
      const allowance = breaker.allowance(endpointId, perEndpoint, now);
      // An open breaker: hand its deliveries back rather than sit on them for the cool-down.
      if (allowance === 0) {
        giveBack.push(...queue.toArray());
        queue.clear();
      }
      let started = false;
      while (queue.length > 0 && active < concurrency && (inFlight.get(endpointId) ?? 0) < allowance) {
        const d = queue.shift()!;
        if (d.leaseUntil - now < config.webhookTimeoutMs + 1000) giveBack.push(d);
        else {
          start(d);
          started = true;
        }
      }
      if (queue.length === 0) waiting.delete(endpointId);
      else if (started) toBack.push(endpointId);
    }
    // Endpoints that just got slots go to the back of the line for the next free ones (after the
    // loop, which would otherwise meet them again).
    if (waiting.size > 1) for (const endpointId of toBack) {
      const queue = waiting.get(endpointId)!;
      waiting.delete(endpointId);
      waiting.set(endpointId, queue);
    }
    if (giveBack.length > 0) release(giveBack, now);
  }

  /** Hands deliveries back to the queue, due at `dueAt`. */
  function release(deliveries: ClaimedDelivery[], dueAt: number): void {
    held -= deliveries.length;
    store.release(deliveries, isoAt(dueAt)).catch((error: unknown) => {
      if (!outage.failed(error)) log.warn({ err: error }, 'webhook worker: giving deliveries back failed; their leases will expire');
    });
  }

  function start(d: ClaimedDelivery): void {
    active += 1;
    count(inFlight, d.endpointId, 1);
    const task = deliver(d).finally(() => running.delete(task));
    running.add(task);
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const attempted = await attempt(d);
    active -= 1;
    count(inFlight, d.endpointId, -1);
    if (attempted === null) {
      // Its secret cannot be opened: this one and the endpoint's others in hand wait (sealed-wait.ts).
      const queue = waiting.get(d.endpointId);
      waiting.delete(d.endpointId);
      release([d, ...(queue?.toArray() ?? [])], sealed.hold(d.endpointId, Date.now()));
      if (!stopped) dispatch();
      return;
    }
    const { record, outcome } = attempted;
    const ok = isSuccess(outcome.statusCode);
    breaker.result(d.endpointId, ok, Date.now());
    pace(d.endpointId, outcome.durationMs);
    stats.attempts += 1;
    if (ok) stats.delivered += 1;
    else {
      stats.failedAttempts += 1;
      warnIfRefused(d.endpointId, d.url, outcome.error);
      log.debug({ delivery: d.id, endpoint: d.endpointId, status: outcome.statusCode, error: outcome.error }, 'webhook attempt failed');
    }
    recorder.add(record);
    if (!stopped) dispatch();
    if (lineRunningLow(waiting.get(d.endpointId)?.length ?? 0, perEndpoint, paced.get(d.endpointId))) wake();
  }

  // --- recording -----------------------------------------------------------------------------
  const recorder = createRecorder(store, log, outage, (batch) => {
    // Claims stopped (or shrank) for want of room in hand: this write makes room.
    const wasFull = claimsWereFull(concurrency, perEndpoint, held);
    held -= batch.length;
    stats.flushes += 1;
    let earliest = Infinity;
    for (const r of batch) if (r.status === 'pending') earliest = Math.min(earliest, Date.parse(r.nextAttemptAt));
    // A hair late, so the claim's clock has certainly passed the due time.
    if (earliest < Infinity) wakeAt(earliest + 2);
    const probe = breaker.nextProbeAt(Date.now());
    if (probe !== null) wakeAt(probe);
    if (wasFull) wake();
  }, config.webhookAutoDisableAfterS);

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
  deps.commits.on('committed', wake);
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
    deps.commits.off('committed', wake);
    await claiming;
    // Deliveries not yet started go back to the queue for the next worker, at once.
    const unstarted = [...waiting.values()].flatMap((queue) => queue.toArray());
    waiting.clear();
    await store.release(unstarted, nowIso()).catch((error: unknown) =>
      log.warn({ err: error }, 'webhook worker: giving deliveries back at shutdown failed; their leases will expire'));
    await Promise.allSettled([...running]);
    // Write what the last attempts found; if that keeps failing, the leases expire and another worker resends.
    await recorder.drain();
    await sender.close();
  }
}
