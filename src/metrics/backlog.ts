// What is waiting in each of the database's queues, read for GET /metrics: every process of an
// instance (serve, worker) shares these queues, so any one server can tell how far behind they are.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface Backlog {
  deliveriesPending: number;
  /** The earliest due time of a pending delivery to an active endpoint that is due now; null if none. */
  deliveriesOldestDue: string | null;
  endpoints: { active: number; paused: number; disabled: number };
  invitations: { scheduled: number; sending: number; failed: number };
  /** The earliest send time of a scheduled invitation that is due now; null if none. */
  invitationsOldestDue: string | null;
  extractionQueued: number;
  extractionOldest: string | null;
}

export async function readBacklog(db: Kysely<DB>, now: string): Promise<Backlog> {
  const [deliveries, endpoints, invitations, extraction] = await Promise.all([
    db.selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .where('d.status', '=', 'pending')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('pending'),
        // A leased delivery's due time is its lease's end, so deliveries in flight are not due.
        eb.fn.min(eb.case().when(eb.and([eb('d.next_attempt_at', '<=', now), eb('e.is_active', '=', 1)]))
          .then(eb.ref('d.next_attempt_at')).end()).as('oldest_due'),
      ])
      .executeTakeFirstOrThrow(),
    db.selectFrom('webhook_endpoints')
      .select((eb) => [
        sql<number | string>`count(case when ${eb.ref('is_active')} = 1 then 1 end)`.as('active'),
        sql<number | string>`count(case when ${eb.ref('is_active')} = 0 and ${eb.ref('disabled_reason')} is null then 1 end)`.as('paused'),
        sql<number | string>`count(case when ${eb.ref('is_active')} = 0 and ${eb.ref('disabled_reason')} is not null then 1 end)`.as('disabled'),
      ])
      .executeTakeFirstOrThrow(),
    db.selectFrom('survey_invitations')
      .where('status', 'in', ['scheduled', 'sending', 'failed'])
      .groupBy('status')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n'),
        eb.fn.min(eb.case().when('send_at', '<=', now).then(eb.ref('send_at')).end()).as('oldest_due')])
      .execute(),
    db.selectFrom('extraction_queue')
      .select((eb) => [eb.fn.countAll<number | string>().as('queued'), eb.fn.min('enqueued_at').as('oldest')])
      .executeTakeFirstOrThrow(),
  ]);
  const byStatus = new Map(invitations.map((row) => [row.status, row]));
  const count = (status: string) => Number(byStatus.get(status)?.n ?? 0);
  return {
    deliveriesPending: Number(deliveries.pending),
    deliveriesOldestDue: deliveries.oldest_due ?? null,
    endpoints: { active: Number(endpoints.active), paused: Number(endpoints.paused), disabled: Number(endpoints.disabled) },
    invitations: { scheduled: count('scheduled'), sending: count('sending'), failed: count('failed') },
    invitationsOldestDue: byStatus.get('scheduled')?.oldest_due ?? null,
    extractionQueued: Number(extraction.queued),
    extractionOldest: extraction.oldest ?? null,
  };
}
