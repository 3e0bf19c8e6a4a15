// SQL of guests, stays and erasure tombstones outside the push hot path (push-repository.ts has the
// upserts): consent withdrawal, the operator's reads, erasure.
import { type Kysely, sql } from 'kysely';
import type { DB, GuestRow, ReservationRow } from '../../db/schema.ts';

/** Consent becomes withdrawn; true only when this call changed it (so the event is emitted once). */
export async function withdrawConsent(db: Kysely<DB>, guestId: string, now: string): Promise<boolean> {
  const changed = await db.updateTable('guests').set({ marketing_consent: 'withdrawn', updated_at: now })
    .where('id', '=', guestId).where('marketing_consent', '<>', 'withdrawn')
    .returning('id').executeTakeFirst();
  return changed !== undefined;
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
 * PostgreSQL: an erasure first locks the guests table against writers (pushes hold ROW EXCLUSIVE
 * until they commit): it waits for pushes in flight, and pushes that arrive meanwhile wait at parse
 * and then see the tombstone in their execution snapshot. Erasures are rare and take milliseconds.
 */
export async function lockGuestsForErasure(db: Kysely<DB>): Promise<void> {
  await sql`lock table guests in share row exclusive mode`.execute(db);
}

/** Withdraws consent by identity; the guest's id when this call changed it (first statement: a write). */
export async function withdrawConsentByIdentity(db: Kysely<DB>, accountId: string, propertyId: string, email: string, now: string): Promise<string | undefined> {
  const row = await db.updateTable('guests').set({ marketing_consent: 'withdrawn', updated_at: now })
    .where('property_id', '=', propertyId).where('email', '=', email).where('account_id', '=', accountId)
    .where('marketing_consent', '<>', 'withdrawn')
    .returning('id').executeTakeFirst();
  return row?.id;
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
