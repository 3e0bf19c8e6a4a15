// The outbox: events are appended inside the caller's transaction (inTransaction, or a store's own
// transaction helper), fanned out there and then to one pending delivery per subscribed endpoint of
// the account (paused ones too: they wait), and the transaction wakes the worker once it commits.
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import { adapterOf } from '../db/adapter.ts';
import type { DialectSql } from '../db/dialect.ts';
import type { DB, EventTable } from '../db/schema.ts';
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

/** appendEvent for many events at once (bulk imports): multi-row inserts, one fan-out statement per call. */
export async function appendEvents(trx: Kysely<DB>, events: readonly NewEvent[], writeRows: EventRowWriter = insertEventRows): Promise<AppendedEvent[]> {
  if (events.length === 0) return [];
  wakeAfterCommit(trx);
  const now = nowIso();
  const bodies: EventBody[] = events.map((e) => ({ id: newId(), type: e.type, timestamp: now, account_id: e.accountId, data: e.data }));
  await writeRows(trx, bodies.map((b) => ({ id: b.id, account_id: b.account_id, type: b.type, payload: JSON.stringify(b), created_at: now })));

  const { sql: dialect } = adapterOf(trx);
  const source = dialect.rows(['id', 'account_id', 'type', 'endpoint_id'], bodies.map((b, i) => [b.id, b.account_id, b.type, events[i]?.endpointId ?? null]), 1);
  const fanOut = `${fanOutSql(dialect, source.from, dialect.text(source.params.length + 1))} returning id, event_id`;
  const { rows } = await trx.executeQuery<{ id: string; event_id: string }>(CompiledQuery.raw(fanOut, [...source.params, now]));
  const deliveries = new Map<string, string[]>();
  for (const row of rows) deliveries.set(row.event_id, [...(deliveries.get(row.event_id) ?? []), row.id]);
  return bodies.map((b) => ({ id: b.id, deliveryIds: deliveries.get(b.id) ?? [] }));
}

const DELIVERY_COLUMNS = 'id, account_id, endpoint_id, event_id, event_type, status, attempt_count, last_status_code, last_attempt_at, next_attempt_at, lease_until, created_at';

/**
 * The fan-out, written once for both databases and every writer of events (appendEvents, and the
 * guest push's single statement on PostgreSQL): each event of `source` (a subquery of columns id,
 * account_id, type, endpoint_id) gets one pending delivery per endpoint of its account that
 * subscribes to its type, paused ones too (they wait), or, with endpoint_id, to that endpoint only.
 * `now` is the placeholder of the time the deliveries are created and due.
 */
export function fanOutSql(dialect: DialectSql, source: string, now: string): string {
  return `insert into webhook_deliveries (${DELIVERY_COLUMNS})
    select ${dialect.newId}, ev.account_id, w.id, ev.id, ev.type, 'pending', 0, null, null, t.at, null, t.at
    from ${source} ev cross join (select ${now} as at) t${dialect.idClock ? ` cross join ${dialect.idClock}` : ''}
    join webhook_endpoints w on w.account_id = ev.account_id
      and case when ev.endpoint_id is null then ${dialect.jsonArrayHas('w.events', 'ev.type')} else w.id = ev.endpoint_id end`;
}
