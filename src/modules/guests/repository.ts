// SQL of guests, stays and erasure tombstones. Upserts are single INSERT … ON CONFLICT statements on
// the identity indexes (guests_identity, reservations_identity), so concurrent pushes of the same
// guest or stay never race a read against a write.
import { type Expression, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import type { DB, GuestRow, ReservationRow } from '../../db/schema.ts';
import type { GuestField, StayField } from './validate.ts';

/** stored ∪ sent, key by key: SQLite's json_patch, PostgreSQL's jsonb concatenation. */
function mergeJson(dialect: Dialect, stored: string, sent: string): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`(${sql.ref(stored)}::jsonb || ${sql.ref(sent)}::jsonb)::text`
    : sql<string>`json_patch(${sql.ref(stored)}, ${sql.ref(sent)})`;
}

export interface GuestUpsert {
  row: GuestRow;
  /** Fields the push carried; only these replace stored values on conflict. */
  sent: readonly GuestField[];
  customFieldsSent: boolean;
  /** true: grant unless withdrawn. false/null: the upsert leaves stored consent alone. */
  grant: boolean;
}

/** Inserts the guest or updates it in place; returns the stored row (row.id kept only when inserted). */
export async function upsertGuest(db: Kysely<DB>, dialect: Dialect, u: GuestUpsert): Promise<GuestRow> {
  return db.insertInto('guests').values(u.row)
    .onConflict((oc) => oc.columns(['property_id', 'email']).doUpdateSet((eb) => {
      const set: Record<string, Expression<unknown>> = { updated_at: eb.ref('excluded.updated_at') };
      for (const field of u.sent) set[field] = eb.ref(`excluded.${field}`);
      if (u.customFieldsSent) set.custom_fields = mergeJson(dialect, 'guests.custom_fields', 'excluded.custom_fields');
      if (u.grant) set.marketing_consent = sql`case when guests.marketing_consent = 'withdrawn' then 'withdrawn' else 'granted' end`;
      return set;
    }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Consent becomes withdrawn; true only when this call changed it (so the event is emitted once). */
export async function withdrawConsent(db: Kysely<DB>, guestId: string, now: string): Promise<boolean> {
  const changed = await db.updateTable('guests').set({ marketing_consent: 'withdrawn', updated_at: now })
    .where('id', '=', guestId).where('marketing_consent', '<>', 'withdrawn')
    .returning('id').executeTakeFirst();
  return changed !== undefined;
}

export interface StayUpsert {
  row: ReservationRow;
  sent: readonly StayField[];
  statusSent: boolean;
  customFieldsSent: boolean;
}

/** Inserts the stay or updates it in place (moving it to this guest); returns the stored row. */
export async function upsertReservation(db: Kysely<DB>, dialect: Dialect, u: StayUpsert): Promise<ReservationRow> {
  return db.insertInto('reservations').values(u.row)
    .onConflict((oc) => oc.columns(['property_id', 'external_id']).doUpdateSet((eb) => {
      const set: Record<string, Expression<unknown>> = { guest_id: eb.ref('excluded.guest_id'), updated_at: eb.ref('excluded.updated_at') };
      for (const field of u.sent) set[field] = eb.ref(`excluded.${field}`);
      if (u.statusSent) set.status = eb.ref('excluded.status');
      if (u.customFieldsSent) set.custom_fields = mergeJson(dialect, 'reservations.custom_fields', 'excluded.custom_fields');
      return set;
    }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function isErased(db: Kysely<DB>, propertyId: string, fingerprint: string): Promise<boolean> {
  const row = await db.selectFrom('erased_guests').select('erased_at')
    .where('property_id', '=', propertyId).where('fingerprint', '=', fingerprint).executeTakeFirst();
  return row !== undefined;
}

export async function findErasure(db: Kysely<DB>, propertyId: string, fingerprint: string): Promise<string | undefined> {
  const row = await db.selectFrom('erased_guests').select('erased_at')
    .where('property_id', '=', propertyId).where('fingerprint', '=', fingerprint).executeTakeFirst();
  return row?.erased_at;
}

export async function findGuest(db: Kysely<DB>, accountId: string, propertyId: string, email: string): Promise<GuestRow | undefined> {
  return db.selectFrom('guests').selectAll()
    .where('property_id', '=', propertyId).where('email', '=', email).where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function listStays(db: Kysely<DB>, guestId: string): Promise<ReservationRow[]> {
  return db.selectFrom('reservations').selectAll().where('guest_id', '=', guestId)
    .orderBy('created_at').orderBy('id').execute();
}

/**
 * Takes the row lock of (property, email) for an erasure: a no-op upsert, so a push in flight on
 * PostgreSQL either finishes first or waits for the erasure and then sees its tombstone. The
 * placeholder a missing guest gets is deleted in the same transaction. Returns the guest's id and
 * whether it existed before.
 */
export async function lockGuestForErasure(db: Kysely<DB>, placeholder: GuestRow): Promise<{ id: string; existed: boolean }> {
  const row = await db.insertInto('guests').values(placeholder)
    .onConflict((oc) => oc.columns(['property_id', 'email']).doUpdateSet({ updated_at: sql`guests.updated_at` }))
    .returning('id').executeTakeFirstOrThrow();
  return { id: row.id, existed: row.id !== placeholder.id };
}

/** Deletes the guest and all its stays; returns how many stays went. */
export async function deleteGuest(db: Kysely<DB>, guestId: string): Promise<number> {
  const stays = await db.deleteFrom('reservations').where('guest_id', '=', guestId).executeTakeFirst();
  await db.deleteFrom('guests').where('id', '=', guestId).execute();
  return Number(stays.numDeletedRows);
}

export async function insertTombstone(db: Kysely<DB>, propertyId: string, fingerprint: string, at: string): Promise<string> {
  await db.insertInto('erased_guests').values({ property_id: propertyId, fingerprint, erased_at: at })
    .onConflict((oc) => oc.columns(['property_id', 'fingerprint']).doNothing()).execute();
  return (await findErasure(db, propertyId, fingerprint)) ?? at;
}

/** Survey responses of the erased person at the property keep their answers but lose the address. */
export async function forgetRespondentEmail(db: Kysely<DB>, propertyId: string, email: string): Promise<void> {
  await db.updateTable('survey_responses').set({ respondent_email: null })
    .where('node_id', '=', propertyId).where(sql<string>`lower(trim(respondent_email))`, '=', email).execute();
}

export async function findNodeType(db: Kysely<DB>, nodeId: string): Promise<{ account_id: string; type: string } | undefined> {
  return db.selectFrom('nodes').select(['account_id', 'type']).where('id', '=', nodeId).executeTakeFirst();
}
