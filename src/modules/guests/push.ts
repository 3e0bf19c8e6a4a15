// POST /guests: one transaction upserts the guest on (property, e-mail) and the stay on
// (property, external_id), refuses erased guests (409), records consent and appends guest.created /
// guest.unsubscribed to the outbox.
import type { Principal } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { appendEvent } from '../../events/outbox.ts';
import type { GuestRow, ReservationRow } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import type { GuestDeps } from './deps.ts';
import { toGuest } from './map.ts';
import { resolveProperty } from './property.ts';
import * as repo from './repository.ts';
import type { Guest } from './schemas.ts';
import { GUEST_FIELDS, type GuestPush, STAY_FIELDS, type StayPush } from './validate.ts';

export interface PushResult {
  guest: Guest;
  created: boolean;
  /** An event was appended: wake the outbox after the commit. */
  emitted: boolean;
}

export const erasedError = (): AppError =>
  new AppError(409, 'this guest was erased under GDPR at this property and cannot be pushed again');

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

/** A stay's dates are checked after the merge too: a push may send check_out alone. */
function checkStayDates(row: ReservationRow): void {
  if (row.check_in !== null && row.check_out !== null && row.check_out < row.check_in) {
    throw new AppError(400, `body.reservation.check_out must not be before check_in (${row.check_out} < stored ${row.check_in})`);
  }
}

export async function pushGuest(deps: GuestDeps, principal: Principal, push: GuestPush): Promise<PushResult> {
  const propertyId = await resolveProperty(deps.db, principal, push.propertyId);
  const accountId = principal.accountId;
  const fingerprint = deps.fingerprint(propertyId, push.email);
  const now = nowIso();
  const row = newGuestRow(accountId, propertyId, push, now);
  return deps.db.transaction().execute(async (trx) => {
    const guest = await repo.upsertGuest(trx, deps.dialect, {
      row, sent: GUEST_FIELDS.filter((f) => f in push.fields), customFieldsSent: push.customFields !== null, grant: push.consent === true,
    });
    const created = guest.id === row.id;
    // After the upsert, not before: on PostgreSQL the upsert waits for an erasure in flight, and this
    // fresh statement then sees its tombstone.
    if ((await repo.findErasure(trx, propertyId, fingerprint)) !== undefined) throw erasedError();
    const unsubscribed = push.consent === false && (created || (await repo.withdrawConsent(trx, guest.id, now)));

    let stay: ReservationRow | null = null;
    if (push.reservation) {
      stay = await repo.upsertReservation(trx, deps.dialect, {
        row: newStayRow(accountId, propertyId, guest.id, push.reservation, now),
        sent: STAY_FIELDS.filter((f) => f in push.reservation!.fields),
        statusSent: push.reservation.status !== null,
        customFieldsSent: push.reservation.customFields !== null,
      });
      checkStayDates(stay);
    }
    const data = { guest_id: guest.id, property_id: propertyId };
    if (created) await appendEvent(trx, { accountId, type: 'guest.created', data });
    if (unsubscribed) await appendEvent(trx, { accountId, type: 'guest.unsubscribed', data });
    return { guest: toGuest(guest, stay), created, emitted: created || unsubscribed };
  });
}
