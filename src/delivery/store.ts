// The worker's view of the delivery tables, as one interface: claim due deliveries under a lease,
// and record the attempts' results. One implementation per dialect, chosen once (src/stores.ts):
// store-postgres.ts (FOR UPDATE SKIP LOCKED, so many workers share the queue) and store-sqlite.ts
// (one immediate transaction, as SQLite has one writer).

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
  owner: string;
  /** The lease's end (epoch ms): an attempt must not start unless it can finish before. */
  leaseUntil: number;
}

/** The worker's view of a claimed row, under the claim that took it. */
export function toClaimed(row: ClaimedRow, claim: Pick<ClaimRequest, 'owner' | 'leaseUntil'>): ClaimedDelivery {
  return {
    id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, eventType: row.event_type, attemptCount: row.attempt_count,
    payload: row.payload, url: row.url, secretEnc: row.secret_enc, owner: claim.owner, leaseUntil: Date.parse(claim.leaseUntil),
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
}

export interface DeliveryStore {
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /** Writes each attempt and its delivery's new state, unless the delivery was deleted or its lease lost. */
  record(records: AttemptRecord[]): Promise<void>;
  /** Gives claimed deliveries back unattempted (due at once), where this claim still holds them. */
  release(deliveries: ClaimedDelivery[], now: string): Promise<void>;
}
