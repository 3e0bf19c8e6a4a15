// SQL of guests, stays and erasure tombstones, and the GuestStore interface: the push's upserts are
// one fixed statement each whatever fields a push carries ("sent" flags choose the stored or the
// pushed value), built here once and run by each database's store (store-sqlite.ts: prepared
// better-sqlite3 statements in group commits; store-postgres.ts: the whole push as one statement).
// Upserts are INSERT … ON CONFLICT on the identity indexes (guests_identity, reservations_identity),
// so concurrent pushes never race a read against a write.
import { type Kysely, sql } from 'kysely';
import type { DB, GuestRow, ReservationRow } from '../../db/schema.ts';
import type { NewEvent } from '../../events/outbox.ts';
import { GUEST_FIELDS, STAY_FIELDS } from './schemas.ts';

/** One push as the store writes it. */
export interface PushWrite {
  /** Keyed fingerprint of (property, e-mail): a tombstone with it means the guest was erased. */
  fingerprint: string;
  guest: GuestWrite;
  stay: StayWrite | null;
  /** The push's marketing_consent: false withdraws (after the upsert, so the change is detected). */
  consent: boolean | null;
  now: string;
}

export interface PushOutcome {
  guest: GuestRow;
  stay: ReservationRow | null;
  created: boolean;
  /** Consent changed to withdrawn by this push. */
  unsubscribed: boolean;
}

/** The service's rules the store applies inside the push's transaction (a throw undoes the push alone). */
export interface PushRules {
  /** The error of a push refused because (property, e-mail) was erased. */
  erased(): Error;
  /** Checks the guest and stay as stored after the merge (a stay's dates, the custom-fields cap). */
  checkStored(write: PushWrite, guest: GuestRow, stay: ReservationRow | null): void;
  /** The events the outcome appends to the outbox. */
  events(outcome: PushOutcome): NewEvent[];
}

/** What differs per database: the push hot path and the erasure's transaction. */
export interface GuestStore {
  /** Upserts the guest (and stay) unless erased, withdraws consent when asked, appends the events; resolves after the commit. */
  push(write: PushWrite, rules: PushRules): Promise<PushOutcome>;
  /** Runs an erasure's statements in one transaction that leaves nothing of the guest behind and lets no push slip in. */
  erase<T>(run: (trx: Kysely<DB>) => Promise<T>): Promise<T>;
}

export const GUEST_COLUMNS = ['id', 'account_id', 'property_id', 'email', 'source', ...GUEST_FIELDS, 'custom_fields', 'marketing_consent', 'created_at', 'updated_at'] as const;
export const STAY_COLUMNS = ['id', 'account_id', 'property_id', 'guest_id', 'external_id', 'status', ...STAY_FIELDS, 'custom_fields', 'created_at', 'updated_at'] as const;

/** What one upsert writes: the row a create inserts, and which fields replace stored ones on conflict. */
export interface GuestWrite {
  row: GuestRow;
  sent: ReadonlySet<string>;
  customFieldsSent: boolean;
  /** Consent true: granted unless already withdrawn. */
  grant: boolean;
}

export interface StayWrite {
  row: ReservationRow;
  sent: ReadonlySet<string>;
  customFieldsSent: boolean;
}

export type Placeholder = (name: string, cast?: string) => string;
export type Merge = (stored: string, sent: string) => string;

/** ON CONFLICT … DO UPDATE SET for a table: sent fields from excluded, custom fields merged key by key. */
function updateSet(table: string, fields: readonly string[], p: Placeholder, merge: Merge, extra: string[]): string {
  return [
    ...fields.map((f) => `${f} = case when ${p(`s_${f}`, 'boolean')} then excluded.${f} else ${table}.${f} end`),
    `custom_fields = case when ${p('s_custom', 'boolean')} then ${merge(`${table}.custom_fields`, 'excluded.custom_fields')} else ${table}.custom_fields end`,
    ...extra,
    'updated_at = excluded.updated_at',
  ].join(', ');
}

export function guestUpsert(p: Placeholder, merge: Merge, values: string): string {
  const set = updateSet('guests', GUEST_FIELDS, p, merge, [
    `marketing_consent = case when ${p('grant', 'boolean')} and guests.marketing_consent <> 'withdrawn' then 'granted' else guests.marketing_consent end`,
  ]);
  return `insert into guests (${GUEST_COLUMNS.join(', ')}) ${values} on conflict (property_id, email) do update set ${set}`;
}

/**
 * sameGuest: update only a stay the pushing guest already holds (no row back otherwise), leaving
 * guest_id out of the SET: SQLite rewrites the entries of every index on a column that an UPDATE
 * sets, equal value or not, and reservations_guest is one. Without it, the stay moves to this guest.
 */
export function stayUpsert(p: Placeholder, merge: Merge, values: string, sameGuest = false): string {
  const set = updateSet('reservations', ['status', ...STAY_FIELDS], p, merge, sameGuest ? [] : ['guest_id = excluded.guest_id']);
  return `insert into reservations (${STAY_COLUMNS.join(', ')}) ${values} on conflict (property_id, external_id) do update set ${set}`
    + (sameGuest ? ' where reservations.guest_id = excluded.guest_id' : '');
}

// The flag names of the sent fields, made once (template strings per push showed in profiles).
const GUEST_SENT = GUEST_FIELDS.map((f) => [f, `s_${f}`] as const);
const STAY_SENT = STAY_FIELDS.map((f) => [f, `s_${f}`] as const);
const STAY_PARAMS = STAY_COLUMNS.map((c) => [c, `r_${c}`] as const);

/** The guest's named parameters, written into `into` (a push's one parameter object: no spreading of copies). */
export function guestParams(w: GuestWrite, into: Record<string, unknown> = {}): Record<string, unknown> {
  into.grant = w.grant;
  into.s_custom = w.customFieldsSent;
  for (const c of GUEST_COLUMNS) into[c] = w.row[c];
  for (const [f, flag] of GUEST_SENT) into[flag] = w.sent.has(f);
  return into;
}

/** customKey: the stay's own custom-fields flag, renamed when it shares a statement with the guest's. */
export function stayParams(w: StayWrite, customKey = 's_custom', into: Record<string, unknown> = {}): Record<string, unknown> {
  into[customKey] = w.customFieldsSent;
  into.s_status = w.sent.has('status');
  for (const [c, name] of STAY_PARAMS) into[name] = w.row[c];
  for (const [f, flag] of STAY_SENT) into[flag] = w.sent.has(f);
  return into;
}

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
