// The outbox: events are appended inside the caller's transaction (inTransaction, or a store's own
// transaction helper), fanned out there and then to one pending delivery per subscribed endpoint of
// the account (paused ones too: they wait), and the transaction wakes the worker once it commits.
import type { Insertable, Kysely } from 'kysely';
import type { DB, EventTable, WebhookDeliveryTable } from '../db/schema.ts';
import { wakeAfterCommit } from '../db/transaction.ts';
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
  return (await appendEvents(trx, [event]))[0]!;
}

/** Writes event rows in the caller's transaction; a store may pass a faster one (SQLite: one prepared statement). */
export type EventRowWriter = (trx: Kysely<DB>, rows: ReadonlyArray<Insertable<EventTable>>) => Promise<void>;

/** Multi-row inserts through Kysely, 1000 rows a statement. */
export const insertEventRows: EventRowWriter = async (trx, rows) => {
  for (let i = 0; i < rows.length; i += 1000) await trx.insertInto('events').values(rows.slice(i, i + 1000)).execute();
};

/** appendEvent for many events at once (bulk imports): multi-row inserts, one endpoint query per call. */
export async function appendEvents(trx: Kysely<DB>, events: readonly NewEvent[], writeRows: EventRowWriter = insertEventRows): Promise<AppendedEvent[]> {
  if (events.length === 0) return [];
  wakeAfterCommit(trx);
  const now = nowIso();
  const bodies: EventBody[] = events.map((e) => ({ id: newId(), type: e.type, timestamp: now, account_id: e.accountId, data: e.data }));
  await writeRows(trx, bodies.map((b) => ({ id: b.id, account_id: b.account_id, type: b.type, payload: JSON.stringify(b), created_at: now })));

  const accounts = [...new Set(events.map((e) => e.accountId))];
  const endpoints = await trx.selectFrom('webhook_endpoints').select(['id', 'account_id', 'events'])
    .where('account_id', 'in', accounts).execute();
  const subscribed = endpoints.map((e) => ({ ...e, events: JSON.parse(e.events) as string[] }));

  const deliveries: Insertable<WebhookDeliveryTable>[] = [];
  const appended = events.map((event, i) => {
    const targets = subscribed.filter((e) => e.account_id === event.accountId &&
      (event.endpointId !== undefined ? e.id === event.endpointId : e.events.includes(event.type)));
    const deliveryIds = targets.map((e) => {
      const id = newId();
      deliveries.push({
        id, account_id: event.accountId, endpoint_id: e.id, event_id: bodies[i]!.id, event_type: event.type,
        status: 'pending', attempt_count: 0, last_status_code: null, last_attempt_at: null,
        next_attempt_at: now, lease_until: null, created_at: now,
      });
      return id;
    });
    return { id: bodies[i]!.id, deliveryIds };
  });
  for (let i = 0; i < deliveries.length; i += 500) await trx.insertInto('webhook_deliveries').values(deliveries.slice(i, i + 500)).execute();
  return appended;
}
