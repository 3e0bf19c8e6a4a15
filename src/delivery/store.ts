// The worker's view of the delivery tables, as one interface: claim due deliveries under a lease,
// and record the attempts' results. One implementation per dialect, chosen once (src/stores.ts):
// store-postgres.ts (FOR UPDATE SKIP LOCKED, so many workers share the queue) and store-sqlite.ts
// (one immediate transaction, as SQLite has one writer).
import { MANUAL_RETRY } from './manual-retry.ts';

export interface ClaimRequest {
  /** ISO now: deliveries whose next_attempt_at is at or before it are due. */
  now: string;
  /** First attempts are due only once WEBHOOK_RETRY_SCHEDULE_S[0] has passed: now minus that delay. */
  firstAttemptCutoff: string;
  /** The lease: a claimed delivery is hidden from every claimer until then (its next_attempt_at). */
  leaseUntil: string;
  /** This claim's token; a result is written only while the delivery still carries it. */
  owner: string;
  /** At most this many deliveries in all. */
  limit: number;
  /** At most this many per endpoint, unless the endpoint is listed in room (in flight and waiting to start). */
  perEndpoint: number;
  /** Endpoints that may take fewer (some slots in use, or a cooling-down endpoint): id → room > 0. */
  room: Map<string, number>;
  /** Endpoints to leave alone this time (no room). */
  excluded: string[];
}

/** A claimed delivery as both stores read it: the row, its event's body and its endpoint's target. */
export interface ClaimedRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number;
  payload: string;
  url: string;
  secret_enc: string;
  /** During a rotation's grace period: the previous secret, which signs too until previous_secret_until. */
  previous_secret_enc: string | null;
  previous_secret_until: string | null;
  /** 1: a re-send asked through the API (one attempt, not counted toward auto-disable). */
  manual_retry: number;
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** Attempts made before this one. */
  attemptCount: number;
  /** The event's stored body, sent unchanged on every attempt. */
  payload: string;
  url: string;
  secretEnc: string;
  /** The previous secret while it still signs (a rotation's grace period), else null. */
  previousSecretEnc: string | null;
  /** Epoch ms when the previous secret stops signing. */
  previousSecretUntil: number | null;
  /** Made due by hand (a re-send, an operator's retry): one attempt whatever its outcome. */
  manual: boolean;
  /** Whether its outcome counts toward auto-disable: not for a re-send asked through the API. */
  countsForHealth: boolean;
  owner: string;
  /** The lease's end (epoch ms): an attempt must not start unless it can finish before. */
  leaseUntil: number;
}

/** The worker's view of a claimed row, under the claim that took it. */
export function toClaimed(row: ClaimedRow, claim: Pick<ClaimRequest, 'owner' | 'leaseUntil'>): ClaimedDelivery {
  return {
    id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, eventType: row.event_type, attemptCount: row.attempt_count,
    payload: row.payload, url: row.url, secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc, previousSecretUntil: row.previous_secret_until === null ? null : Date.parse(row.previous_secret_until),
    manual: Number(row.manual_retry) !== MANUAL_RETRY.none, countsForHealth: Number(row.manual_retry) !== MANUAL_RETRY.api, owner: claim.owner, leaseUntil: Date.parse(claim.leaseUntil),
  };
}

export interface AttemptRecord {
  deliveryId: string;
  owner: string;
  attemptId: string;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** The delivery's state after this attempt. */
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: string;
  /** Set when the answer was 410 Gone: the endpoint is paused. */
  pauseEndpointId: string | null;
  endpointId: string;
  /** Whether the attempt counts toward auto-disable (false for a re-send asked through the API). */
  counts: boolean;
}

/**
 * What a batch of results says of each endpoint's health, in order: cleared (its last counted
 * attempt succeeded), or failing since a time; `restart` when a success came before that failure
 * within the batch (the stored failing_since is then replaced, not kept).
 */
export interface EndpointHealth {
  endpointId: string;
  failingSince: string | null;
  restart: boolean;
  lastError: string | null;
}

export function endpointHealth(records: readonly AttemptRecord[]): EndpointHealth[] {
  const byEndpoint = new Map<string, EndpointHealth>();
  for (const r of records) {
    if (!r.counts) continue;
    const ok = r.error === null;
    const seen = byEndpoint.get(r.endpointId);
    if (ok) byEndpoint.set(r.endpointId, { endpointId: r.endpointId, failingSince: null, restart: true, lastError: null });
    else if (!seen) byEndpoint.set(r.endpointId, { endpointId: r.endpointId, failingSince: r.attemptedAt, restart: false, lastError: r.error });
    else if (seen.failingSince === null) byEndpoint.set(r.endpointId, { ...seen, failingSince: r.attemptedAt, lastError: r.error });
    else seen.lastError = r.error;
  }
  return [...byEndpoint.values()];
}

/** The reason recorded on an endpoint that auto-disable turned off. */
export function autoDisableReason(afterS: number, lastError: string | null): string {
  const [n, unit] = afterS % 86400 === 0 ? [afterS / 86400, 'day'] : afterS % 3600 === 0 ? [afterS / 3600, 'hour'] : [afterS, 'second'];
  const span = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return `auto-disabled: every delivery attempt failed for ${span} (WEBHOOK_AUTO_DISABLE_AFTER_S)${lastError ? `; last error: ${lastError}` : ''}`;
}
export const GONE_REASON = 'paused: the endpoint answered 410 Gone';

export interface DeliveryStore {
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Writes each attempt and its delivery's new state, unless the delivery was deleted or its lease
   * lost; keeps each endpoint's failing_since and disables one failing for autoDisableAfterS (0: never).
   * Answers the ids of the endpoints this write disabled.
   */
  record(records: AttemptRecord[], autoDisableAfterS: number): Promise<string[]>;
  /** Gives claimed deliveries back unattempted (due at once), where this claim still holds them. */
  release(deliveries: ClaimedDelivery[], now: string): Promise<void>;
}
