// TypeBox schemas of guests: the public push body and answer (GuestPushInput, Guest, Reservation)
// and the operator's guest view and erase/unsubscribe bodies.
import { Type, type Static } from 'typebox';
import { DateTime, NullableDateTime, NullableString, Uuid } from '../../http/schemas.ts';

export const STATUSES = ['booked', 'arrived', 'checked_out', 'cancelled', 'no_show'] as const;
export type StayStatus = (typeof STATUSES)[number];
export const MAX_CUSTOM_FIELDS = 100;

/**
 * Optional and nullable: omitted keeps the stored value, null clears it. A type list rather than
 * anyOf, so a violation reads as one message ("body.phone must NOT have more than 40 characters").
 */
const Clearable = (maxLength: number, extra: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, ...extra }));

/** ISO 8601 date (2026-11-22) or date-time with a UTC offset; checked and normalised in validate.ts. */
const DateOrDateTime = Clearable(64, {
  description: 'ISO 8601 date (2026-11-22, stored as midnight UTC) or date-time with offset (2026-11-22T14:00:00+01:00)',
});

/** Flat key → value map; values are strings, numbers or booleans; merged key by key into the stored map. */
export const CustomFields = Type.Unsafe<Record<string, string | number | boolean>>({
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: 2000 },
  maxProperties: MAX_CUSTOM_FIELDS,
  description: `up to ${MAX_CUSTOM_FIELDS} keys (1–100 chars); values string (max 2000), number or boolean`,
});

export const ReservationInput = Type.Object({
  external_id: Type.String({ minLength: 1, maxLength: 255, description: 'your reference; with the property, the stay\'s identity' }),
  status: Type.Optional(Type.Unsafe<StayStatus>({ type: 'string', enum: [...STATUSES], description: 'defaults to booked on create; omitted keeps the stored status' })),
  raw_status: Clearable(120),
  check_in: DateOrDateTime,
  check_out: DateOrDateTime,
  checked_in_at: DateOrDateTime,
  checked_out_at: DateOrDateTime,
  channel: Clearable(120),
  custom_fields: Type.Optional(CustomFields),
}, { additionalProperties: false });
export type ReservationInput = Static<typeof ReservationInput>;

export const GuestPushInput = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320, description: 'trimmed and lower-cased first; with the property, the guest\'s identity' }),
  property_id: Type.Optional(Uuid),
  salutation: Clearable(50),
  first_name: Clearable(200),
  last_name: Clearable(200),
  phone: Clearable(40),
  country_code: Clearable(2, { minLength: 2, description: 'ISO 3166-1 alpha-2, either case; stored upper-case' }),
  language_code: Clearable(5, { pattern: '^[A-Za-z]{2,3}(-[A-Za-z]{2})?$', description: 'language or language-region, e.g. en, de-CH' }),
  custom_fields: Type.Optional(CustomFields),
  marketing_consent: Type.Optional(Type.Boolean({ description: 'true grants, false withdraws; a withdrawal is never overridden by a later grant' })),
  reservation: Type.Optional(ReservationInput),
}, { additionalProperties: false });
export type GuestPushInput = Static<typeof GuestPushInput>;

const reservationFields = {
  id: Uuid,
  external_id: Type.String(),
  status: Type.String(),
  raw_status: NullableString,
  check_in: NullableDateTime,
  check_out: NullableDateTime,
  checked_in_at: NullableDateTime,
  checked_out_at: NullableDateTime,
  channel: NullableString,
  created_at: DateTime,
  updated_at: DateTime,
};

export const Reservation = Type.Object(reservationFields, { $id: 'Reservation' });
export type Reservation = Static<typeof Reservation>;

const guestFields = {
  id: Uuid,
  property_id: Uuid,
  source: Type.String(),
  email: NullableString,
  salutation: NullableString,
  first_name: NullableString,
  last_name: NullableString,
  phone: NullableString,
  country_code: NullableString,
  language_code: NullableString,
  created_at: DateTime,
  updated_at: DateTime,
};

export const Guest = Type.Object({ ...guestFields, reservation: Type.Optional(Reservation) }, { $id: 'Guest' });
export type Guest = Static<typeof Guest>;

// The operator's view: everything stored about one guest, consent and stays included.
const StoredFields = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));
export const Consent = Type.Union([Type.Literal('unknown'), Type.Literal('granted'), Type.Literal('withdrawn')]);
export type Consent = Static<typeof Consent>;

export const Stay = Type.Object({ ...reservationFields, custom_fields: StoredFields });
export type Stay = Static<typeof Stay>;

export const GuestDetail = Type.Object({
  ...guestFields,
  account_id: Uuid,
  marketing_consent: Consent,
  custom_fields: StoredFields,
  stays: Type.Array(Stay),
});
export type GuestDetail = Static<typeof GuestDetail>;

export const GuestIdentity = Type.Object({
  property_id: Uuid,
  email: Type.String({ format: 'email', maxLength: 320 }),
}, { additionalProperties: false });
export type GuestIdentity = Static<typeof GuestIdentity>;

export const Erased = Type.Object({
  property_id: Uuid,
  erased: Type.Boolean(),
  guest_deleted: Type.Boolean(),
  stays_deleted: Type.Integer(),
  erased_at: DateTime,
});
export type Erased = Static<typeof Erased>;
