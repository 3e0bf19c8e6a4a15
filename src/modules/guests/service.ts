// The rules of guests: which property a push lands on, the push itself (create or update in place,
// 409 for erased guests, consent, guest.created / guest.unsubscribed), and the operator's tools
// (look up, withdraw consent, GDPR erasure leaving only a keyed fingerprint); rows → API objects.
// The statements are in repository.ts and, where the databases differ, the context's GuestStore.
import type { Kysely } from 'kysely';
import type { DB, GuestRow, ReservationRow } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { appendEvent, type NewEvent } from '../../events/outbox.ts';
import type { Principal } from '../../access/principal.ts';
import { conflict, type DomainError, invalid, notFound, unprocessable } from '../../lib/errors.ts';
import type { Fingerprinter } from '../../lib/fingerprint.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import type { TtlCache } from '../../lib/ttl-cache.ts';
import { requireAccount } from '../accounts/service.ts';
import { nodeTypeOf, PROPERTY, requireAccountNode } from '../nodes/service.ts';
import * as repo from './repository.ts';
import type { GuestStore, PushOutcome, PushRules, PushWrite } from './repository.ts';
import {
  checkCustomFieldsCap, type Consent, type Erased, type Guest, type GuestDetail, type GuestPush, normaliseEmail, type Reservation,
  type Stay, type StayPush,
} from './schemas.ts';

/** What the guest services need from the context (src/context.ts builds it; the CLI too). */
export interface GuestContext {
  db: Kysely<DB>;
  stores: { guests: GuestStore };
  fingerprint: Fingerprinter;
  /** node id → node type, for pushes naming a property. */
  nodeTypes: TtlCache<string>;
}

// ---- rows → API objects -----------------------------------------------------------------------

function toReservation(row: ReservationRow): Reservation {
  return {
    id: row.id, external_id: row.external_id, status: row.status, raw_status: row.raw_status,
    check_in: row.check_in, check_out: row.check_out, checked_in_at: row.checked_in_at,
    checked_out_at: row.checked_out_at, channel: row.channel, created_at: row.created_at, updated_at: row.updated_at,
  };
}

/** The push answer: reservation only when the push carried one. */
function toGuest(row: GuestRow, stay: ReservationRow | null): Guest {
  const guest: Guest = {
    id: row.id, property_id: row.property_id, source: row.source, email: row.email,
    salutation: row.salutation, first_name: row.first_name, last_name: row.last_name, phone: row.phone,
    country_code: row.country_code, language_code: row.language_code, created_at: row.created_at, updated_at: row.updated_at,
  };
  if (stay) guest.reservation = toReservation(stay);
  return guest;
}

const fields = (text: string): Record<string, string | number | boolean> => JSON.parse(text) as Record<string, string | number | boolean>;

const toStay = (row: ReservationRow): Stay => ({ ...toReservation(row), custom_fields: fields(row.custom_fields) });

function toGuestDetail(row: GuestRow, stays: ReservationRow[]): GuestDetail {
  const { reservation: _none, ...guest } = toGuest(row, null);
  return {
    ...guest, account_id: row.account_id, marketing_consent: row.marketing_consent as Consent,
    custom_fields: fields(row.custom_fields), stays: stays.map(toStay),
  };
}

// ---- where a push lands ------------------------------------------------------------------------

// A node's type never changes once created, so a push to a known property costs no query: the
// context's nodeTypes cache (its TTL only bounds memory and staleness should an operator ever
// retype a node).
async function nodeType(ctx: GuestContext, nodeId: string): Promise<string | null> {
  const cached = ctx.nodeTypes.get(nodeId);
  if (cached !== undefined) return cached;
  const type = await nodeTypeOf(ctx.db, nodeId);
  if (type === undefined) return null;
  ctx.nodeTypes.set(nodeId, type);
  return type;
}

/** "an account node", "a group node": the article a node type takes. */
function aNode(type: string | null | undefined): string {
  const name = type ?? 'unknown';
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name} node`;
}

/** Which property a push lands on: the key's own, or a property node named by property_id inside the key's subtree; else 422. */
async function resolveProperty(ctx: GuestContext, principal: Principal, requested: string | null): Promise<string> {
  if (requested === null) {
    if (principal.nodeType === PROPERTY) return principal.nodeId;
    throw unprocessable(`property_id is required: the key is bound to ${aNode(principal.nodeType)}, not a property, so name the property the guest belongs to`);
  }
  if (!principal.inSubtree(requested)) {
    throw unprocessable(`property_id ${requested} is not within the key's scope: it must be a property at or below the key's node`);
  }
  const type = requested === principal.nodeId ? principal.nodeType : await nodeType(ctx, requested);
  if (type !== PROPERTY) {
    throw unprocessable(`property_id ${requested} is ${aNode(type)}, not a property: guests belong to property (leaf) nodes`);
  }
  return requested;
}

/** For the operator plane: the property must be a property node of the account, else 400. */
async function requireAccountProperty(db: Kysely<DB>, accountId: string, propertyId: string): Promise<void> {
  const node = await requireAccountNode(db, accountId, propertyId, 'property_id');
  if (node.type !== PROPERTY) throw invalid(`property_id is ${aNode(node.type)}, not a property`);
}

// ---- the push -----------------------------------------------------------------------------------

export interface PushResult {
  guest: Guest;
  created: boolean;
}

const erasedError = (): DomainError =>
  conflict('this guest was erased under GDPR at this property and cannot be pushed again', 'guest_erased');

function newGuestRow(accountId: string, propertyId: string, push: GuestPush, now: string): GuestRow {
  return {
    id: newId(), account_id: accountId, property_id: propertyId, email: push.email, source: 'api',
    salutation: push.fields.salutation ?? null, first_name: push.fields.first_name ?? null,
    last_name: push.fields.last_name ?? null, phone: push.fields.phone ?? null,
    country_code: push.fields.country_code ?? null, language_code: push.fields.language_code ?? null,
    custom_fields: push.customFields ?? '{}',
    marketing_consent: push.consent === null ? 'unknown' : push.consent ? 'granted' : 'withdrawn',
    created_at: now, updated_at: now, unsubscribed_at: null,
  };
}

function newStayRow(accountId: string, propertyId: string, guestId: string, stay: StayPush, now: string): ReservationRow {
  return {
    id: newId(), account_id: accountId, property_id: propertyId, guest_id: guestId, external_id: stay.externalId,
    status: stay.status ?? 'booked', raw_status: stay.fields.raw_status ?? null,
    check_in: stay.fields.check_in ?? null, check_out: stay.fields.check_out ?? null,
    checked_in_at: stay.fields.checked_in_at ?? null, checked_out_at: stay.fields.checked_out_at ?? null,
    channel: stay.fields.channel ?? null, custom_fields: stay.customFields ?? '{}', created_at: now, updated_at: now,
  };
}

/** A stay's dates are checked after the merge too: a push may send check_out alone. */
function checkStayDates(row: ReservationRow): void {
  if (row.check_in !== null && row.check_out !== null && row.check_out < row.check_in) {
    throw invalid(`body.reservation.check_out must not be before check_in (${row.check_out} < stored ${row.check_in})`);
  }
}

/** The guest and stay as stored after the merge: the stay's dates, and merged custom fields within the cap. */
function checkStored(w: PushWrite, guest: GuestRow, stay: ReservationRow | null): void {
  if (stay) checkStayDates(stay);
  if (w.guest.customFieldsSent) checkCustomFieldsCap('body.custom_fields', JSON.parse(guest.custom_fields), true);
  if (stay && w.stay?.customFieldsSent) checkCustomFieldsCap('body.reservation.custom_fields', JSON.parse(stay.custom_fields), true);
}

function eventsOf(o: PushOutcome): NewEvent[] {
  const data = { guest_id: o.guest.id, property_id: o.guest.property_id };
  const accountId = o.guest.account_id;
  const events: NewEvent[] = [];
  if (o.created) events.push({ accountId, type: 'guest.created', data });
  if (o.unsubscribed) events.push({ accountId, type: 'guest.unsubscribed', data });
  return events;
}

const PUSH_RULES: PushRules = { erased: erasedError, checkStored, events: eventsOf };

export async function pushGuest(ctx: GuestContext, principal: Principal, push: GuestPush): Promise<PushResult> {
  const propertyId = await resolveProperty(ctx, principal, push.propertyId);
  const now = nowIso();
  const r = push.reservation;
  const w: PushWrite = {
    fingerprint: ctx.fingerprint(propertyId, push.email),
    guest: {
      row: newGuestRow(principal.accountId, propertyId, push, now), sent: new Set(Object.keys(push.fields)),
      customFieldsSent: push.customFields !== null, grant: push.consent === true,
    },
    stay: r && {
      row: newStayRow(principal.accountId, propertyId, '', r, now),
      sent: new Set([...Object.keys(r.fields), ...(r.status === null ? [] : ['status'])]),
      customFieldsSent: r.customFields !== null,
    },
    consent: push.consent,
    now,
  };
  const o = await ctx.stores.guests.push(w, PUSH_RULES);
  return { guest: toGuest(o.guest, o.stay), created: o.created };
}

// ---- the operator's tools ------------------------------------------------------------------------

async function guestNotFound(ctx: GuestContext, propertyId: string, email: string): Promise<DomainError> {
  const erasedAt = await repo.findErasure(ctx.db, propertyId, ctx.fingerprint(propertyId, email));
  return erasedAt ? notFound('guest', `guest not found: it was erased under GDPR at ${erasedAt}`) : notFound('guest');
}

export async function showGuest(ctx: GuestContext, accountId: string, propertyId: string, rawEmail: string): Promise<GuestDetail> {
  await requireAccount(ctx.db, accountId);
  const email = normaliseEmail(rawEmail);
  const guest = await repo.findGuest(ctx.db, accountId, propertyId, email);
  if (!guest) throw await guestNotFound(ctx, propertyId, email);
  return toGuestDetail(guest, await repo.listStays(ctx.db, guest.id));
}

/** Withdraws consent (guest.unsubscribed once, when this call changed it). */
export async function unsubscribeGuest(ctx: GuestContext, accountId: string, propertyId: string, rawEmail: string): Promise<GuestDetail> {
  await requireAccount(ctx.db, accountId);
  const email = normaliseEmail(rawEmail);
  // The write goes first: on SQLite a transaction that reads before it writes can lose its
  // snapshot to another process (a server pushing while the CLI runs).
  const result = await inTransaction(ctx.db, async (trx) => {
    const changedId = await repo.withdrawConsentByIdentity(trx, accountId, propertyId, email, nowIso());
    const guest = await repo.findGuest(trx, accountId, propertyId, email);
    if (!guest) return null;
    if (changedId) await appendEvent(trx, { accountId, type: 'guest.unsubscribed', data: { guest_id: guest.id, property_id: propertyId } });
    return toGuestDetail(guest, await repo.listStays(trx, guest.id));
  });
  if (!result) throw await guestNotFound(ctx, propertyId, email);
  return result;
}

/**
 * Deletes the guest and every stay of it, clears the address from the property's survey responses
 * and records the fingerprint. Erasing an unknown guest still records it: the person asked not to be
 * stored, so later pushes must answer 409 too.
 */
export async function eraseGuest(ctx: GuestContext, accountId: string, propertyId: string, rawEmail: string): Promise<Erased> {
  await requireAccount(ctx.db, accountId);
  const email = normaliseEmail(rawEmail);
  await requireAccountProperty(ctx.db, accountId, propertyId);
  const now = nowIso();
  // The store's transaction locks out pushes (PostgreSQL) or zeroes freed pages (SQLite).
  return ctx.stores.guests.erase(async (trx) => {
    // The tombstone first: a write, so SQLite takes its write lock before reading anything.
    const erasedAt = await repo.insertTombstone(trx, propertyId, ctx.fingerprint(propertyId, email), now);
    const guest = await repo.findGuest(trx, accountId, propertyId, email);
    const staysDeleted = guest ? await repo.deleteGuest(trx, guest.id) : 0;
    await repo.forgetRespondentEmail(trx, propertyId, email);
    return { property_id: propertyId, erased: true, guest_deleted: guest !== undefined, stays_deleted: staysDeleted, erased_at: erasedAt };
  });
}
