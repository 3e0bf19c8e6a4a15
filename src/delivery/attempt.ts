// One attempt of a claimed delivery: sign the stored body with the endpoint's secret (decrypted once
// and cached; also with the previous one during a rotation's grace period, when it opens), send it through the
// address guard, and turn the outcome into the record the worker writes (the delivery's next state
// per the retry schedule, or final after one attempt for a re-send; 410 Gone pauses the endpoint).
import type { Config } from '../config.ts';
import { newId } from '../lib/ids.ts';
import { open } from '../lib/secret-box.ts';
import { isoAt } from '../lib/time.ts';
import type { AttemptRecord, ClaimedDelivery } from './store.ts';
import { nextStep } from './schedule.ts';
import type { AttemptOutcome, Sender } from './sender.ts';
import { secretKey, webhookHeaders } from './signer.ts';

export interface Attempted {
  record: AttemptRecord;
  outcome: AttemptOutcome;
}

/**
 * The attempt of a claimed delivery, or null when its endpoint's signing secret cannot be opened with
 * REPUTE_SECRET_KEY (another key sealed it): the worker then holds the delivery back (sealed-wait.ts)
 * rather than spend one of its attempts on a request it cannot sign.
 */
export function attempter(config: Pick<Config, 'secretKey' | 'webhookRetryScheduleS'>, sender: Sender): (d: ClaimedDelivery) => Promise<Attempted | null> {
  const keys = new Map<string, Buffer>();

  const signingKey = (sealed: string, endpointId: string): Buffer | null => {
    let key = keys.get(sealed);
    if (key === undefined) {
      try {
        key = secretKey(open(config.secretKey, sealed, endpointId));
      } catch {
        return null;
      }
      if (keys.size > 10_000) keys.clear();
      keys.set(sealed, key);
    }
    return key;
  };

  /**
   * The current secret's key, then the previous one's while its grace period lasts; null when the
   * current one cannot be opened. A previous secret that cannot be opened is left out: after the
   * original key was lost, a new secret sealed with the key in use signs on its own.
   */
  const signingKeys = (d: ClaimedDelivery, now: number): Buffer[] | null => {
    const current = signingKey(d.secretEnc, d.endpointId);
    if (current === null) return null;
    if (d.previousSecretEnc === null || d.previousSecretUntil === null || d.previousSecretUntil <= now) return [current];
    const previous = signingKey(d.previousSecretEnc, d.endpointId);
    return previous === null ? [current] : [current, previous];
  };

  return async (d) => {
    const attemptedAt = Date.now();
    const key = signingKeys(d, attemptedAt);
    // Not an attempt: nothing was sent, and nothing the receiver does would change it.
    if (key === null) return null;
    const outcome: AttemptOutcome = await sender.send(d.url, webhookHeaders(key, d.eventId, d.payload, attemptedAt), d.payload);
    // A re-send or an operator's retry is one attempt: after it the delivery is delivered or failed, whatever the schedule says.
    const step = nextStep(d.manual ? [] : config.webhookRetryScheduleS, d.manual ? 1 : d.attemptCount + 1, outcome, new Date());
    return {
      outcome,
      record: {
        deliveryId: d.id, owner: d.owner, attemptId: newId(), attemptedAt: isoAt(attemptedAt),
        statusCode: outcome.statusCode, durationMs: outcome.durationMs, error: outcome.error, responseBody: outcome.responseBody,
        status: step.status, nextAttemptAt: isoAt(step.nextAttemptAt.getTime()),
        pauseEndpointId: outcome.statusCode === 410 ? d.endpointId : null,
        endpointId: d.endpointId, counts: d.countsForHealth,
      },
    };
  };
}
