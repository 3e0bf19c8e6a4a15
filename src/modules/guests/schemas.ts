// TypeBox schemas of guests: the public push body and answer (GuestPushInput, Guest, Reservation)
// and the operator's guest view and erase/unsubscribe bodies; then the push input beyond what the
// schema can say (e-mail normalisation before validation, real country codes, date normalisation,
// finite numbers), turning a valid body into the GuestPush the service stores. Every failure is a
// 400 naming the field.
import countries from 'i18n-iso-countries';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { preValidationHookHandler } from 'fastify';
import { Type, type Static } from 'typebox';
import { DateTime, NullableDateTime, NullableString, Uuid } from '../../http/schemas.ts';
import { invalid } from '../../lib/errors.ts';
import { parseDate, parseInstant } from '../../lib/instant.ts';

const STATUSES = ['booked', 'arrived', 'checked_out', 'cancelled', 'no_show'] as const;
export type StayStatus = (typeof STATUSES)[number];
const MAX_CUSTOM_FIELDS = 100;

/**
 * Optional and nullable: omitted keeps the stored value, null clears it. A type list rather than
 * anyOf, so a violation reads as one message ("body.phone must NOT have more than 40 characters").
 */
const Clearable = (maxLength: number, extra: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, ...extra }));

/** ISO 8601 date (2026-11-22) or date-time (an offset-less one read as UTC); checked and normalised by normaliseDate below. */
const DateOrDateTime = Clearable(64, {
  description: 'ISO 8601 date (2026-11-22, stored as midnight UTC) or date-time (2026-11-22T14:00:00+01:00; without an offset read as UTC)',
});

/** Flat key → value map; values are strings, numbers or booleans; merged key by key into the stored map. */
const CustomFields = Type.Unsafe<Record<string, string | number | boolean>>({
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: 2000 },
  maxProperties: MAX_CUSTOM_FIELDS,
  description: `up to ${MAX_CUSTOM_FIELDS} keys (1–100 chars); values string (max 2000), number or boolean`,
});

const ReservationInput = Type.Object({
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

// ---- input beyond the schema -------------------------------------------------------------------

export const GUEST_FIELDS = ['salutation', 'first_name', 'last_name', 'phone', 'country_code', 'language_code'] as const;
export type GuestField = (typeof GUEST_FIELDS)[number];
export const STAY_FIELDS = ['raw_status', 'check_in', 'check_out', 'checked_in_at', 'checked_out_at', 'channel'] as const;
export type StayField = (typeof STAY_FIELDS)[number];
const DATE_FIELDS = ['check_in', 'check_out', 'checked_in_at', 'checked_out_at'] as const;

export interface StayPush {
  externalId: string;
  status: StayStatus | null;
  /** Only the fields the push carried: null clears, absent keeps. */
  fields: Partial<Record<StayField, string | null>>;
  /** JSON text of the custom fields to merge, or null when none were sent. */
  customFields: string | null;
}

export interface GuestPush {
  email: string;
  propertyId: string | null;
  fields: Partial<Record<GuestField, string | null>>;
  customFields: string | null;
  consent: boolean | null;
  reservation: StayPush | null;
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** preValidation hook: trims and lower-cases body.email (and querystring.email) so the schema checks the normalised form. */
export const normaliseEmailHook: preValidationHookHandler = async (request) => {
  for (const part of [request.body, request.query] as unknown[]) {
    if (part !== null && typeof part === 'object' && typeof (part as { email?: unknown }).email === 'string') {
      const holder = part as { email: string };
      holder.email = normaliseEmail(holder.email);
    }
  }
};

/**
 * Optional push fields that are not values to clear (a property, a consent, a map merged key by key,
 * a stay, its status): sent as null they mean what leaving them out means, as in the operator plane.
 * Fields that are values (phone, check_in, …) keep null as "clear it".
 */
const NULL_MEANS_OMITTED = ['property_id', 'custom_fields', 'marketing_consent', 'reservation'] as const;
const STAY_NULL_MEANS_OMITTED = ['status', 'custom_fields'] as const;

/** preValidation of the guest push: drops the nulls of NULL_MEANS_OMITTED (see there). Callback-style: no promise on the hot path. */
export const nullMeansOmittedHook: preValidationHookHandler = (request, _reply, done) => {
  dropOmittedNulls(request.body);
  done();
};

function dropOmittedNulls(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const push = body as Record<string, unknown>;
  for (const name of NULL_MEANS_OMITTED) if (push[name] === null) delete push[name];
  const stay = push.reservation;
  if (stay !== null && typeof stay === 'object' && !Array.isArray(stay)) {
    for (const name of STAY_NULL_MEANS_OMITTED) if ((stay as Record<string, unknown>)[name] === null) delete (stay as Record<string, unknown>)[name];
  }
}

const emailFormat = (fullFormats as unknown as Record<string, RegExp>).email!;
/** The same check the schema's format: "email" and maxLength make (for the CLI). */
export const isValidEmail = (email: string): boolean => email.length <= 320 && emailFormat.test(email);

/** An ISO 8601 date-time without an offset (a property system's local time), seconds optional. */
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?$/;

/**
 * ISO 8601 date → midnight UTC; date-time with offset → UTC with milliseconds (src/lib/instant.ts);
 * date-time without an offset (ISO 8601 allows it, and property systems send their local time) →
 * read as UTC, as a date is; anything else is a 400.
 */
function normaliseDate(field: string, value: string): string {
  const local = LOCAL_DATE_TIME.exec(value);
  const iso = parseDate(value) ?? parseInstant(value) ?? (local ? parseInstant(`${local[1]}${local[2] ?? ':00'}Z`) : null);
  if (iso === null) {
    throw invalid(`${field} must be an ISO 8601 date (2026-11-22) or date-time (2026-11-22T14:00:00, read as UTC, or with an offset: 2026-11-22T14:00:00+01:00) between 1970 and 9999, got ${JSON.stringify(value.slice(0, 64))}`);
  }
  return iso;
}

/**
 * The cap on what a guest's (or a stay's) custom fields may hold once a push is merged into them:
 * 100 keys (what one push may send) and 16 KiB as compact JSON in UTF-8. Enough for the loyalty
 * tiers, room numbers and booking codes a PMS sends (a few dozen short values); without a cap,
 * pushes of fresh keys grew one row to megabytes, which every later push of the guest rewrites.
 */
const CUSTOM_FIELDS_MAX_BYTES = 16 * 1024;

/** 400 when a custom-fields map (a push's, or a stored one after the merge) exceeds the cap. */
export function checkCustomFieldsCap(field: string, fields: Record<string, unknown>, merged: boolean): void {
  const keys = Object.keys(fields).length;
  const bytes = Buffer.byteLength(JSON.stringify(fields));
  const what = merged ? `${field} would hold` : `${field} holds`;
  const after = merged ? ' once merged into the stored ones (stored keys are kept)' : '';
  if (keys > MAX_CUSTOM_FIELDS) throw invalid(`${what} ${keys} keys${after}; the limit is ${MAX_CUSTOM_FIELDS} keys`);
  if (bytes > CUSTOM_FIELDS_MAX_BYTES) throw invalid(`${what} ${bytes} bytes as JSON${after}; the limit is ${CUSTOM_FIELDS_MAX_BYTES} bytes (16 KiB)`);
}

function customFieldsJson(field: string, value: Record<string, string | number | boolean> | undefined): string | null {
  if (value === undefined) return null;
  for (const key of Object.keys(value)) {
    if (key.length < 1 || key.length > 100) throw invalid(`${field} keys must be 1 to 100 characters, got "${key.slice(0, 120)}"`);
  }
  checkCustomFieldsCap(field, value, false);
  return JSON.stringify(value);
}

function countryCode(value: string): string {
  const upper = value.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper) || !countries.isValid(upper)) {
    throw invalid(`body.country_code must be an ISO 3166-1 alpha-2 country code such as DE or US, got "${value}"`);
  }
  return upper;
}

/** "pt-br" → "pt-BR": the canonical case of a language-region tag (the schema checked the shape). */
function languageCode(value: string): string {
  const [language, region] = value.split('-');
  return region === undefined ? language!.toLowerCase() : `${language!.toLowerCase()}-${region.toUpperCase()}`;
}

function stayPush(input: ReservationInput): StayPush {
  const fields: StayPush['fields'] = {};
  for (const name of STAY_FIELDS) {
    const value = input[name];
    if (value === undefined) continue;
    fields[name] = value !== null && (DATE_FIELDS as readonly string[]).includes(name) ? normaliseDate(`body.reservation.${name}`, value) : value;
  }
  if (fields.check_in && fields.check_out && fields.check_out < fields.check_in) {
    throw invalid(`body.reservation.check_out must not be before check_in (${fields.check_out} < ${fields.check_in})`);
  }
  return {
    externalId: input.external_id,
    status: input.status ?? null,
    fields,
    customFields: customFieldsJson('body.reservation.custom_fields', input.custom_fields),
  };
}

/** The schema-valid body as the service stores it; throws a 400 for what the schema cannot check. */
export function toGuestPush(input: GuestPushInput): GuestPush {
  const fields: GuestPush['fields'] = {};
  for (const name of GUEST_FIELDS) {
    const value = input[name];
    if (value === undefined) continue;
    if (value === null) fields[name] = null;
    else if (name === 'country_code') fields[name] = countryCode(value);
    else if (name === 'language_code') fields[name] = languageCode(value);
    else fields[name] = value;
  }
  return {
    email: normaliseEmail(input.email),
    propertyId: input.property_id ?? null,
    fields,
    customFields: customFieldsJson('body.custom_fields', input.custom_fields),
    consent: input.marketing_consent ?? null,
    reservation: input.reservation ? stayPush(input.reservation) : null,
  };
}
