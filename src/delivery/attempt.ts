// One attempt of a claimed delivery: sign the stored body with the endpoint's secret (decrypted once
// and cached), send it through the address guard, and turn the outcome into the record the worker
// writes (the delivery's next state per the retry schedule; 410 Gone pauses the endpoint).
import type { Config } from '../config.ts';
import { newId } from '../lib/ids.ts';
import { open } from '../lib/secret-box.ts';
import type { AttemptRecord, ClaimedDelivery } from './store.ts';
import { nextStep } from './schedule.ts';
import type { AttemptOutcome, Sender } from './sender.ts';
import { secretKey, webhookHeaders } from './signer.ts';

export interface Attempted {
  record: AttemptRecord;
  outcome: AttemptOutcome;
}

export function attempter(config: Pick<Config, 'secretKey' | 'webhookRetryScheduleS'>, sender: Sender): (d: ClaimedDelivery) => Promise<Attempted> {
  const keys = new Map<string, Buffer>();

  const signingKey = (d: ClaimedDelivery): Buffer | null => {
    let key = keys.get(d.secretEnc);
    if (key === undefined) {
      try {
        key = secretKey(open(config.secretKey, d.secretEnc, d.endpointId));
      } catch {
        return null;
      }
      if (keys.size > 10_000) keys.clear();
      keys.set(d.secretEnc, key);
    }
    return key;
  };

  return async (d) => {
    const attemptedAt = new Date();
    const key = signingKey(d);
    const outcome: AttemptOutcome = key === null
      ? { statusCode: null, durationMs: 0, responseBody: null, retryAfterS: null, error: 'the signing secret cannot be decrypted (was REPUTE_SECRET_KEY changed?)' }
      : await sender.send(d.url, webhookHeaders(key, d.eventId, d.payload, attemptedAt.getTime()), d.payload);
    const step = nextStep(config.webhookRetryScheduleS, d.attemptCount + 1, outcome, new Date());
    return {
      outcome,
      record: {
        deliveryId: d.id, owner: d.owner, attemptId: newId(), attemptedAt: attemptedAt.toISOString(),
        statusCode: outcome.statusCode, durationMs: outcome.durationMs, error: outcome.error, responseBody: outcome.responseBody,
        status: step.status, nextAttemptAt: step.nextAttemptAt.toISOString(),
        pauseEndpointId: outcome.statusCode === 410 ? d.endpointId : null,
      },
    };
  };
}
