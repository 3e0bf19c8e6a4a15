// A per-worker circuit breaker per endpoint: after THRESHOLD failures in a row the endpoint gets
// no attempts for a cool-down (1 s, doubling to 60 s), then one probe at a time until an attempt
// succeeds. A dead endpoint with a huge backlog so costs almost nothing, and deliveries to healthy
// endpoints keep their pace. Deliveries are only delayed, never dropped or charged an attempt.

export interface BreakerOptions {
  threshold: number;
  firstCooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { threshold: 10, firstCooldownMs: 1000, maxCooldownMs: 60_000 };

interface State {
  failures: number;
  openUntil: number;
  cooldownMs: number;
}

export interface Breaker {
  /** How many attempts the endpoint may have in flight now: the normal cap, 0 while open, 1 to probe. */
  allowance(endpointId: string, cap: number, now: number): number;
  /** Endpoints that are not at the normal cap, with their allowance. */
  limited(cap: number, now: number): Map<string, number>;
  result(endpointId: string, ok: boolean, now: number): void;
  /** When the earliest open breaker lets a probe through, or null. */
  nextProbeAt(now: number): number | null;
}

export function createBreaker(options: BreakerOptions = DEFAULT_BREAKER): Breaker {
  const states = new Map<string, State>();
  const allowance = (state: State | undefined, cap: number, now: number) => {
    if (!state || state.failures < options.threshold) return cap;
    return now < state.openUntil ? 0 : 1;
  };
  return {
    allowance: (endpointId, cap, now) => allowance(states.get(endpointId), cap, now),
    limited(cap, now) {
      const out = new Map<string, number>();
      for (const [id, state] of states) {
        const n = allowance(state, cap, now);
        if (n < cap) out.set(id, n);
      }
      return out;
    },
    result(endpointId, ok, now) {
      if (ok) {
        states.delete(endpointId);
        return;
      }
      const state = states.get(endpointId) ?? { failures: 0, openUntil: 0, cooldownMs: 0 };
      state.failures += 1;
      // Results of attempts that were already in flight when it opened do not lengthen the cool-down.
      if (state.failures >= options.threshold && now >= state.openUntil) {
        state.cooldownMs = state.cooldownMs === 0 ? options.firstCooldownMs : Math.min(state.cooldownMs * 2, options.maxCooldownMs);
        state.openUntil = now + state.cooldownMs;
      }
      states.set(endpointId, state);
      if (states.size > 100_000) states.clear();
    },
    nextProbeAt(now) {
      let next: number | null = null;
      for (const state of states.values()) {
        if (state.failures >= options.threshold && state.openUntil > now && (next === null || state.openUntil < next)) next = state.openUntil;
      }
      return next;
    },
  };
}
