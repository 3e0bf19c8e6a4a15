// POST /guests: one transaction upserts the guest on (property, e-mail) and the stay on
// (property, external_id), refuses erased guests (409), records consent and appends guest.created /
// guest.unsubscribed to the outbox. The statements themselves are in push-repository.ts.
import type { Principal } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { appendEvents, type NewEvent } from '../../events/outbox.ts';
import type { GuestRow, ReservationRow } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import type { GuestDeps } from './deps.ts';
import { inNextBatch } from './group-commit.ts';
import { toGuest } from './map.ts';
import { resolveProperty } from './property.ts';
import {
  type GuestWrite, pgPush, pgPushAlone, sqliteStatements, sqliteUpsertGuest,
  sqliteUpsertStay, sqliteWithdraw, type StayWrite,
} from './push-repository.ts';
import * as repo from './repository.ts';
import type { Guest } from './schemas.ts';
import { checkCustomFieldsCap, type GuestPush, type StayPush } from './validate.ts';

export interface PushResult {
  guest: Guest;
  created: boolean;
  /** An event was appended: wake the outbox after the commit. */
  emitted: boolean;
}

export const erasedError = (): AppError =>
  new AppError(409, 'this guest was erased under GDPR at this property and cannot be pushed again', {}, 'guest_erased');

function newGuestRow(accountId: string, propertyId: string, push: GuestPush, now: string): GuestRow {
  return {
    id: newId(), account_id: accountId, property_id: propertyId, email: push.email, source: 'api',
    salutation: push.fields.salutation ?? null, first_name: push.fields.first_name ?? null,
    last_name: push.fields.last_name ?? null, phone: push.fields.phone ?? null,
    country_code: push.fields.country_code ?? null, language_code: push.fields.language_code ?? null,
    custom_fields: push.customFields ?? '{}',
    marketing_consent: push.consent === null ? 'unknown' : push.consent ? 'granted' : 'withdrawn',
    created_at: now, updated_at: now,
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

/** The merged custom fields of what a push wrote must fit the cap (the push itself was checked in validate.ts). */
function checkMergedFields(w: Write, guest: GuestRow, stay: ReservationRow | null): void {
  if (w.guest.customFieldsSent) checkCustomFieldsCap('body.custom_fields', JSON.parse(guest.custom_fields), true);
  if (stay && w.stay?.customFieldsSent) checkCustomFieldsCap('body.reservation.custom_fields', JSON.parse(stay.custom_fields), true);
}

/** A stay's dates are checked after the merge too: a push may send check_out alone. */
function checkStayDates(row: ReservationRow): void {
  if (row.check_in !== null && row.check_out !== null && row.check_out < row.check_in) {
    throw new AppError(400, `body.reservation.check_out must not be before check_in (${row.check_out} < stored ${row.check_in})`);
  }
}

interface Write {
  /** Keyed fingerprint of (property, e-mail): a tombstone with it means the guest was erased. */
  fingerprint: string;
  guest: GuestWrite;
  stay: StayWrite | null;
  /** The push's marketing_consent: false withdraws (after the upsert, so the change is detected). */
  consent: boolean | null;
  now: string;
}

interface Outcome {
  guest: GuestRow;
  stay: ReservationRow | null;
  created: boolean;
  unsubscribed: boolean;
}

function eventsOf(o: Outcome): NewEvent[] {
  const data = { guest_id: o.guest.id, property_id: o.guest.property_id };
  const accountId = o.guest.account_id;
  const events: NewEvent[] = [];
  if (o.created) events.push({ accountId, type: 'guest.created', data });
  if (o.unsubscribed) events.push({ accountId, type: 'guest.unsubscribed', data });
  return events;
}

/**
 * SQLite: prepared better-sqlite3 statements, run synchronously in the next group-commit batch
 * (group-commit.ts), each push in its own savepoint.
 */
function writeSqlite(deps: GuestDeps, w: Write): Promise<Outcome> {
  const sqlite = deps.database.sqlite!;
  const st = sqliteStatements(sqlite);
  return inNextBatch(deps.db, sqlite, (): Outcome => {
    const guest = sqliteUpsertGuest(st, w.guest, w.fingerprint);
    if (!guest) throw erasedError();
    const created = guest.id === w.guest.row.id;
    const unsubscribed = w.consent === false && (created || sqliteWithdraw(st, guest.id, w.now));
    const stay = w.stay ? sqliteUpsertStay(st, { ...w.stay, row: { ...w.stay.row, guest_id: guest.id } }) : null;
    if (stay) checkStayDates(stay);
    checkMergedFields(w, guest, stay);
    return { guest, stay, created, unsubscribed };
  }, eventsOf);
}

/**
 * PostgreSQL, most pushes: one autocommitted statement (tombstone check, guest and stay upserts, and
 * guest.created with its deliveries when the guest is new): one round trip. Pushes that may need to
 * look at the stored row after writing (a withdrawal, to emit guest.unsubscribed once; a stay date
 * sent alone, checked against the stored other one; custom fields, whose merge must fit the cap) run
 * in a transaction instead, rolled back when the check fails.
 */
async function writePostgres(deps: GuestDeps, w: Write): Promise<Outcome> {
  const dates = w.stay ? ['check_in', 'check_out'].filter((f) => w.stay!.sent.has(f)).length : 0;
  const custom = w.guest.customFieldsSent || w.stay?.customFieldsSent === true;
  if (w.consent !== false && dates !== 1 && !custom) {
    const pushed = await pgPushAlone(deps.database.pool!, w.fingerprint, w.guest, w.stay);
    if (pushed.erased || !pushed.guest) throw erasedError();
    return { guest: pushed.guest, stay: pushed.stay, created: pushed.guest.id === w.guest.row.id, unsubscribed: false };
  }
  return deps.db.transaction().execute(async (trx) => {
    const pushed = await pgPush(trx, w.fingerprint, w.guest, w.stay);
    if (pushed.erased || !pushed.guest) throw erasedError();
    const { guest, stay } = pushed;
    const created = guest.id === w.guest.row.id;
    const unsubscribed = w.consent === false && (created || (await repo.withdrawConsent(trx, guest.id, w.now)));
    if (stay) checkStayDates(stay);
    checkMergedFields(w, guest, stay);
    const outcome = { guest, stay, created, unsubscribed };
    const events = eventsOf(outcome);
    if (events.length > 0) await appendEvents(trx, events);
    return outcome;
  });
}

export async function pushGuest(deps: GuestDeps, principal: Principal, push: GuestPush): Promise<PushResult> {
  const propertyId = await resolveProperty(deps.db, principal, push.propertyId);
  const now = nowIso();
  const r = push.reservation;
  const w: Write = {
    fingerprint: deps.fingerprint(propertyId, push.email),
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
  const o = deps.dialect === 'sqlite' ? await writeSqlite(deps, w) : await writePostgres(deps, w);
  return { guest: toGuest(o.guest, o.stay), created: o.created, emitted: o.created || o.unsubscribed };
}
