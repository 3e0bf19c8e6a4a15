// Delivery claims and results on PostgreSQL: one statement each. Claims pick due deliveries of
// active endpoints in random endpoint order, each endpoint capped, with FOR UPDATE SKIP LOCKED so
// concurrent workers never take the same row; the lease is written into next_attempt_at, so an
// expired lease (a killed worker) makes the delivery due again by itself.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AttemptRecord, ClaimedDelivery, ClaimRequest, DeliveryStore } from './repository.ts';

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number;
  payload: string;
  url: string;
  secret_enc: string;
}

export function postgresStore(db: Kysely<DB>): DeliveryStore {
  return {
    async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
      const roomIds = [...r.room.keys()];
      const roomSizes = roomIds.map((id) => r.room.get(id)!);
      const { rows } = await sql<ClaimRow>`
        WITH room(endpoint_id, n) AS (SELECT * FROM unnest(${roomIds}::text[], ${roomSizes}::int[])),
        candidates AS (
          SELECT e.id FROM webhook_endpoints e
          WHERE e.is_active = 1 AND NOT (e.id = ANY(${r.excluded}::text[]))
            AND EXISTS (SELECT 1 FROM webhook_deliveries d
                        WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ${r.now})
          ORDER BY random()
        ),
        picked AS (
          SELECT x.id FROM candidates c
          LEFT JOIN room ON room.endpoint_id = c.id
          CROSS JOIN LATERAL (
            SELECT d.id FROM webhook_deliveries d
            WHERE d.endpoint_id = c.id AND d.status = 'pending' AND d.next_attempt_at <= ${r.now}
              AND (d.attempt_count > 0 OR d.next_attempt_at <= ${r.firstAttemptCutoff})
            ORDER BY d.next_attempt_at
            LIMIT coalesce(room.n, ${r.perEndpoint}::int)
            FOR UPDATE OF d SKIP LOCKED
          ) x
          LIMIT ${r.limit}::int
        )
        UPDATE webhook_deliveries d
        SET next_attempt_at = ${r.leaseUntil}, lease_until = ${r.leaseUntil}, lease_owner = ${r.owner}
        FROM picked, events ev, webhook_endpoints e
        WHERE d.id = picked.id AND ev.id = d.event_id AND e.id = d.endpoint_id
        RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, ev.payload, e.url, e.secret_enc
      `.execute(db);
      return rows.map((row) => ({
        id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, eventType: row.event_type,
        attemptCount: row.attempt_count, payload: row.payload, url: row.url, secretEnc: row.secret_enc, owner: r.owner,
      }));
    },

    async record(records: AttemptRecord[]): Promise<void> {
      if (records.length === 0) return;
      const col = <K extends keyof AttemptRecord>(key: K) => records.map((x) => x[key]);
      // The update only touches deliveries that still exist and still carry this claim's lease (a
      // DELETE wins over an attempt in flight); attempts are kept for exactly those.
      await sql`
        WITH r AS (
          SELECT * FROM unnest(
            ${col('deliveryId')}::text[], ${col('owner')}::text[], ${col('status')}::text[], ${col('statusCode')}::int[],
            ${col('attemptedAt')}::text[], ${col('nextAttemptAt')}::text[], ${col('attemptId')}::text[],
            ${col('durationMs')}::int[], ${col('error')}::text[], ${col('responseBody')}::text[]
          ) AS r(id, owner, status, code, at, next, attempt_id, duration, error, body)
        ),
        updated AS (
          UPDATE webhook_deliveries d
          SET status = r.status, attempt_count = d.attempt_count + 1, last_status_code = r.code,
              last_attempt_at = r.at, next_attempt_at = r.next, lease_until = NULL, lease_owner = NULL
          FROM r WHERE d.id = r.id AND d.lease_owner = r.owner
          RETURNING d.id
        )
        INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error, response_body)
        SELECT r.attempt_id, r.id, r.at, r.code, r.duration, r.error, r.body FROM r JOIN updated u ON u.id = r.id
      `.execute(db);
      const gone = [...new Set(records.map((x) => x.pauseEndpointId).filter((id): id is string => id !== null))];
      if (gone.length > 0) {
        await db.updateTable('webhook_endpoints').set({ is_active: 0, updated_at: new Date().toISOString() })
          .where('id', 'in', gone).execute();
      }
    },
  };
}
