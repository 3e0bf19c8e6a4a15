// What happens after an attempt: delivered on 2xx; otherwise the next attempt follows
// WEBHOOK_RETRY_SCHEDULE_S (entry n is the delay before attempt n+1) plus up to 20% jitter, later
// if a 429/503 asked for it with Retry-After (capped), and after the last entry the delivery fails.
// The jitter only lengthens: the schedule is each delay's floor (operator.md: "delay before each
// attempt"), and deliveries that failed together still spread out before their next attempt.

const JITTER = 0.2;
/** Retry-After is honoured up to an hour, or up to the schedule's longest delay if that is longer. */
const RETRY_AFTER_CAP_S = 3600;

export interface NextStep {
  status: 'pending' | 'delivered' | 'failed';
  /** When the next attempt is due (for a final state, the attempt's own time). */
  nextAttemptAt: Date;
}

export interface AttemptResult {
  statusCode: number | null;
  retryAfterS: number | null;
}

export const isSuccess = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** attemptsMade counts this attempt too. */
export function nextStep(schedule: readonly number[], attemptsMade: number, result: AttemptResult, now: Date, random = Math.random): NextStep {
  if (isSuccess(result.statusCode)) return { status: 'delivered', nextAttemptAt: now };
  if (attemptsMade >= schedule.length) return { status: 'failed', nextAttemptAt: now };
  let delayS = schedule[attemptsMade]! * (1 + JITTER * random());
  if (result.retryAfterS !== null) {
    const cap = Math.max(RETRY_AFTER_CAP_S, ...schedule);
    delayS = Math.max(delayS, Math.min(result.retryAfterS, cap));
  }
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + Math.round(delayS * 1000)) };
}
