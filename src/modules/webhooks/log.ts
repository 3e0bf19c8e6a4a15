// An endpoint's delivery log for people (Settings → Webhooks): the most recent deliveries with the
// reason of their last failed attempt, from the same listing as the public API's.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { EVENT_TYPES } from '../../events/types.ts';
import { listDeliveries } from './service.ts';
import type { WebhookDelivery } from './schemas.ts';

/** The event types an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES;

/** The endpoint's `limit` most recent deliveries, newest first (404 for another account's endpoint). */
export async function deliveryLog(db: Kysely<DB>, principal: Principal, endpointId: string, limit = 10): Promise<WebhookDelivery[]> {
  return (await listDeliveries(db, principal, endpointId)).data.slice(0, limit);
}
