// Delivery claims and results on PostgreSQL: one named prepared statement each (parsed and planned
// once per connection: the hot path). Claims pick due deliveries of active endpoints in random
// endpoint order, each endpoint capped, with FOR UPDATE SKIP LOCKED so concurrent workers never
// take the same row; the lease is written into next_attempt_at, so an
// expired lease (a killed worker) makes the delivery due again by itself.
import type { PostgresDatabase } from '../db/connect.ts';
import { type AttemptRecord, autoDisableReason, type ClaimedDelivery, type ClaimedRow, type ClaimRequest, type DeliveryStore, endpointHealth, GONE_REASON, toClaimed } from './store.ts';

// $1 room endpoint ids, $2 room sizes, $3 excluded ids, $4 now, $5 first-attempt cutoff,
// $6 default per-endpoint limit, $7 overall limit, $8 lease end, $9 claim token.
// The update finds the picked rows through the primary key (`d.id = ANY(ARRAY(...))`, as RECORD
// below does): joined to `picked` alone, a plan made for the values at hand (the first five
// executions on each connection) hashed the whole deliveries table, a sequential scan of every
// delivery ever made (8 of a 20 ms claim of 384 at 20,000 deliveries; test/delivery/claim-plan.test.ts).
export const CLAIM = `
  WITH room(endpoint_id, n) AS (SELECT * FROM unnest($1::text[], $2::int[])),
  candidates AS (
    -- A LIMIT 1 probe of the pending index per endpoint: written as EXISTS, the planner may turn it
    -- into a hash semi-join that scans the whole deliveries table.
    SELECT e.id FROM webhook_endpoints e
    WHERE e.is_active = 1 AND NOT (e.id = ANY($3::text[]))
      AND (SELECT d.next_attempt_at FROM webhook_deliveries d
           WHERE d.endpoint_id = e.id AND d.status = 'pending' ORDER BY d.next_attempt_at LIMIT 1) <= $4::text
    ORDER BY random()
  ),
  picked AS (
    SELECT x.id FROM candidates c
    LEFT JOIN room ON room.endpoint_id = c.id
    CROSS JOIN LATERAL (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.endpoint_id = c.id AND d.status = 'pending' AND d.next_attempt_at <= $4::text
        AND (d.attempt_count > 0 OR d.next_attempt_at <= $5::text)
      ORDER BY d.next_attempt_at
      LIMIT coalesce(room.n, $6::int)
      FOR UPDATE OF d SKIP LOCKED
    ) x
    LIMIT $7::int
  )
  UPDATE webhook_deliveries d
  SET next_attempt_at = $8::text, lease_until = $8::text, lease_owner = $9::text
  FROM picked, events ev, webhook_endpoints e
  WHERE d.id = ANY(ARRAY(SELECT id FROM picked)) AND d.id = picked.id AND ev.id = d.event_id AND e.id = d.endpoint_id
  RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, ev.payload, e.url, e.secret_enc,
    e.previous_secret_enc, e.previous_secret_until, d.manual_retry`;

// The update only touches deliveries that still exist and still carry this claim's lease (a DELETE
// wins over an attempt in flight); attempts are kept for exactly those. `d.id = ANY($1)` beside the
// join has the rows found through the primary key whatever the plan: joined to unnest() alone, a
// plan made for the values at hand (PostgreSQL's first five executions of a prepared statement)
// hashed the whole deliveries table instead, a sequential scan that grows with the table (6 of a
// 10 ms write of 280 results at 20,000 deliveries). RELEASE below likewise.
export const RECORD = `
  WITH r AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[])
      AS r(id, owner, status, code, at, next, attempt_id, duration, error, body)
  ),
  updated AS (
    UPDATE webhook_deliveries d
    SET status = r.status, attempt_count = d.attempt_count + 1, last_status_code = r.code,
        last_attempt_at = r.at, next_attempt_at = r.next, lease_until = NULL, lease_owner = NULL, manual_retry = 0
    FROM r WHERE d.id = ANY($1::text[]) AND d.id = r.id AND d.lease_owner = r.owner
    RETURNING d.id
  )
  INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error, response_body)
  SELECT r.attempt_id, r.id, r.at, r.code, r.duration, r.error, r.body FROM r JOIN updated u ON u.id = r.id`;

const PAUSE = 'UPDATE webhook_endpoints SET is_active = 0, disabled_reason = $3::text, updated_at = $2::text WHERE id = ANY($1::text[])';

// Endpoint health (auto-disable), written only where it changes: a success clears failing_since, a
// failure sets it if unset (or restarts it when a success came first in the batch), and an active
// endpoint failing since at or before the cut-off is disabled with its reason.
// $1 ids, $2 failing since (null: healthy), $3 restart, $4 reasons, $5 now, $6 cut-off (null: never disable).
const HEALTH = `
  UPDATE webhook_endpoints e
  SET failing_since = x.next_since,
      is_active = CASE WHEN x.disable THEN 0 ELSE e.is_active END,
      disabled_reason = CASE WHEN x.disable THEN x.reason ELSE e.disabled_reason END,
      updated_at = CASE WHEN x.disable THEN $5::text ELSE e.updated_at END
  FROM (
    SELECT h.id, h.reason, n.next_since, c.failing_since AS was,
      (n.next_since IS NOT NULL AND $6::text IS NOT NULL AND c.is_active = 1 AND n.next_since <= $6::text) AS disable
    FROM unnest($1::text[], $2::text[], $3::bool[], $4::text[]) AS h(id, since, restart, reason)
    JOIN webhook_endpoints c ON c.id = h.id
    CROSS JOIN LATERAL (SELECT CASE WHEN h.since IS NULL THEN NULL
      WHEN h.restart OR c.failing_since IS NULL THEN h.since ELSE c.failing_since END AS next_since) n
  ) x
  WHERE e.id = x.id AND (x.disable OR x.next_since IS DISTINCT FROM x.was)
  RETURNING e.id, x.disable AS disabled`;

export const RELEASE = `
  UPDATE webhook_deliveries d SET next_attempt_at = $3::text, lease_until = NULL, lease_owner = NULL
  FROM unnest($1::text[], $2::text[]) AS r(id, owner)
  WHERE d.id = ANY($1::text[]) AND d.id = r.id AND d.lease_owner = r.owner`;

export function postgresDeliveryStore({ pool }: PostgresDatabase): DeliveryStore {
  return {
    async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
      const roomIds = [...r.room.keys()];
      // Named (parsed and planned once per connection): every step of its plan, generic or not, is a
      // seek on the pending index within one endpoint, so a large backlog elsewhere is never walked.
      const { rows } = await pool.query<ClaimedRow>({
        name: 'repute_delivery_claim', text: CLAIM,
        values: [roomIds, roomIds.map((id) => r.room.get(id)!), r.excluded, r.now, r.firstAttemptCutoff, r.perEndpoint, r.limit, r.leaseUntil, r.owner],
      });
      return rows.map((row) => toClaimed(row, r));
    },

    async record(records: AttemptRecord[], autoDisableAfterS: number): Promise<string[]> {
      if (records.length === 0) return [];
      const col = <K extends keyof AttemptRecord>(key: K) => records.map((x) => x[key]);
      await pool.query({
        name: 'repute_delivery_record', text: RECORD,
        values: [col('deliveryId'), col('owner'), col('status'), col('statusCode'), col('attemptedAt'), col('nextAttemptAt'),
          col('attemptId'), col('durationMs'), col('error'), col('responseBody')],
      });
      const gone = [...new Set(records.map((x) => x.pauseEndpointId).filter((id): id is string => id !== null))];
      if (gone.length > 0) await pool.query({ name: 'repute_endpoint_pause', text: PAUSE, values: [gone, new Date().toISOString(), GONE_REASON] });
      const health = endpointHealth(records);
      if (health.length === 0) return [];
      const now = Date.now();
      const { rows } = await pool.query<{ id: string; disabled: boolean }>({
        name: 'repute_endpoint_health', text: HEALTH,
        values: [health.map((h) => h.endpointId), health.map((h) => h.failingSince), health.map((h) => h.restart),
          health.map((h) => autoDisableReason(autoDisableAfterS, h.lastError)), new Date(now).toISOString(),
          autoDisableAfterS > 0 ? new Date(now - autoDisableAfterS * 1000).toISOString() : null],
      });
      return rows.filter((row) => row.disabled).map((row) => row.id);
    },

    async release(deliveries, now) {
      if (deliveries.length === 0) return;
      await pool.query({
        name: 'repute_delivery_release', text: RELEASE,
        values: [deliveries.map((x) => x.id), deliveries.map((x) => x.owner), now],
      });
    },
  };
}
