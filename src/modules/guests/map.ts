// Stored guest and stay rows → the API objects: the public Guest/Reservation and the operator's view.
import type { GuestRow, ReservationRow } from '../../db/schema.ts';
import type { Consent, Guest, GuestDetail, Reservation, Stay } from './schemas.ts';

export function toReservation(row: ReservationRow): Reservation {
  return {
    id: row.id, external_id: row.external_id, status: row.status, raw_status: row.raw_status,
    check_in: row.check_in, check_out: row.check_out, checked_in_at: row.checked_in_at,
    checked_out_at: row.checked_out_at, channel: row.channel, created_at: row.created_at, updated_at: row.updated_at,
  };
}

/** The push answer: reservation only when the push carried one. */
export function toGuest(row: GuestRow, stay: ReservationRow | null): Guest {
  const guest: Guest = {
    id: row.id, property_id: row.property_id, source: row.source, email: row.email,
    salutation: row.salutation, first_name: row.first_name, last_name: row.last_name, phone: row.phone,
    country_code: row.country_code, language_code: row.language_code, created_at: row.created_at, updated_at: row.updated_at,
  };
  if (stay) guest.reservation = toReservation(stay);
  return guest;
}

const fields = (text: string): Record<string, string | number | boolean> => JSON.parse(text) as Record<string, string | number | boolean>;

export const toStay = (row: ReservationRow): Stay => ({ ...toReservation(row), custom_fields: fields(row.custom_fields) });

export function toGuestDetail(row: GuestRow, stays: ReservationRow[]): GuestDetail {
  const { reservation: _none, ...guest } = toGuest(row, null);
  return {
    ...guest, account_id: row.account_id, marketing_consent: row.marketing_consent as Consent,
    custom_fields: fields(row.custom_fields), stays: stays.map(toStay),
  };
}
