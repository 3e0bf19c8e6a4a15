// An endpoint's delivery log for people (Settings → Webhooks): the most recent deliveries with the
// result of their latest attempt (the HTTP status, or why no answer came: refused address, time-out,
// connection error), and a re-send of a failed one, within the principal's account only.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { EVENT_TYPES } from '../../events/types.ts';
import { notFound } from '../../lib/errors.ts';
import { lookup } from '../../lib/ids.ts';
import * as repo from './repository.ts';
import { ownEndpoint, retryDelivery } from './service.ts';
import type { WebhookDelivery } from './schemas.ts';

/** The event types an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES;

export interface LoggedDelivery extends WebhookDelivery {
  /** Why the latest attempt failed (null: it got an answer, or none was made yet). */
  last_error: string | null;
}

/** The endpoint's `limit` most recent deliveries, newest first (404 for another account's endpoint). */
export async function deliveryLog(db: Kysely<DB>, principal: Principal, endpointId: string, limit = 10): Promise<LoggedDelivery[]> {
  await ownEndpoint(db, principal, endpointId);
  const rows = await repo.listDeliveries(db, endpointId, limit);
  const latest = new Map((await repo.latestAttempts(db, rows.map((r) => r.id))).map((a) => [a.delivery_id, a]));
  return rows.map((row) => ({
    id: row.id, event_type: row.event_type, status: row.status as WebhookDelivery['status'], attempt_count: row.attempt_count,
    last_status_code: row.last_status_code, last_attempt_at: row.last_attempt_at, created_at: row.created_at,
    last_error: latest.get(row.id)?.error ?? null,
  }));
}

/** One more attempt of a failed delivery of this endpoint (404 unless it is the principal's; 409 unless failed). */
export async function resendFailed(db: Kysely<DB>, principal: Principal, endpointId: string, deliveryId: string): Promise<void> {
  await ownEndpoint(db, principal, endpointId);
  const row = await lookup(deliveryId, (uuid) => repo.findDelivery(db, uuid));
  if (!row || row.endpoint_id !== endpointId) throw notFound('delivery');
  await retryDelivery(db, deliveryId);
}
