// The outbox: events are appended inside the caller's transaction, and fanned out there and then
// to one pending delivery per subscribed endpoint of the account (paused ones too: they wait).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { nowIso } from '../lib/time.ts';
import type { EventBody, EventType } from './types.ts';

export interface NewEvent {
  accountId: string;
  type: EventType;
  data: Record<string, unknown>;
  /** Only this endpoint (the test ping), whatever it subscribes to. */
  endpointId?: string;
}

export interface AppendedEvent {
  id: string;
  deliveryIds: string[];
}

export async function appendEvent(trx: Kysely<DB>, event: NewEvent): Promise<AppendedEvent> {
  const now = nowIso();
  const body: EventBody = { id: newId(), type: event.type, timestamp: now, account_id: event.accountId, data: event.data };
  await trx.insertInto('events').values({
    id: body.id, account_id: event.accountId, type: event.type, payload: JSON.stringify(body), created_at: now,
  }).execute();

  let query = trx.selectFrom('webhook_endpoints').select(['id', 'events']).where('account_id', '=', event.accountId);
  if (event.endpointId !== undefined) query = query.where('id', '=', event.endpointId);
  const endpoints = (await query.execute())
    .filter((e) => event.endpointId !== undefined || (JSON.parse(e.events) as string[]).includes(event.type));
  if (endpoints.length === 0) return { id: body.id, deliveryIds: [] };

  const deliveries = endpoints.map((e) => ({
    id: newId(), account_id: event.accountId, endpoint_id: e.id, event_id: body.id, event_type: event.type,
    status: 'pending', attempt_count: 0, last_status_code: null, last_attempt_at: null,
    next_attempt_at: now, lease_until: null, created_at: now,
  }));
  await trx.insertInto('webhook_deliveries').values(deliveries).execute();
  return { id: body.id, deliveryIds: deliveries.map((d) => d.id) };
}
