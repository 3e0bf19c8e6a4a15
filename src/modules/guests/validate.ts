// Guest push input beyond what the schema can say: e-mail normalisation before validation, real
// country codes, date normalisation, finite numbers; turns a valid body into the GuestPush the
// service stores. Every failure is a 400 naming the field.
import countries from 'i18n-iso-countries';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { preValidationHookHandler } from 'fastify';
import { AppError } from '../../http/errors.ts';
import type { GuestPushInput, ReservationInput, StayStatus } from './schemas.ts';

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

const emailFormat = (fullFormats as unknown as Record<string, RegExp>).email!;
/** The same check the schema's format: "email" and maxLength make (for the CLI). */
export const isValidEmail = (email: string): boolean => email.length <= 320 && emailFormat.test(email);

const dateTime = (fullFormats as unknown as Record<string, { validate: (s: string) => boolean }>)['date-time']!.validate;
const dateOnly = (fullFormats as unknown as Record<string, { validate: (s: string) => boolean }>).date!.validate;
const STORED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 date → midnight UTC; date-time with offset → UTC with milliseconds; anything else is a 400. */
export function normaliseDate(field: string, value: string): string {
  let iso: string | null = null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && dateOnly(value)) iso = `${value}T00:00:00.000Z`;
  else if (dateTime(value)) {
    const date = new Date(value.toUpperCase().replace(' ', 'T'));
    iso = Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  if (iso === null || !STORED.test(iso)) {
    throw new AppError(400, `${field} must be an ISO 8601 date (2026-11-22) or date-time with a UTC offset (2026-11-22T14:00:00+01:00), got "${value}"`);
  }
  return iso;
}

function customFieldsJson(field: string, value: Record<string, string | number | boolean> | undefined): string | null {
  if (value === undefined) return null;
  for (const [key, v] of Object.entries(value)) {
    if (key.length < 1 || key.length > 100) throw new AppError(400, `${field} keys must be 1 to 100 characters, got "${key.slice(0, 120)}"`);
    if (typeof v === 'number' && !Number.isFinite(v)) throw new AppError(400, `${field}.${key} must be a finite number`);
  }
  return JSON.stringify(value);
}

function countryCode(value: string): string {
  const upper = value.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper) || !countries.isValid(upper)) {
    throw new AppError(400, `body.country_code must be an ISO 3166-1 alpha-2 country code such as DE or US, got "${value}"`);
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
    throw new AppError(400, `body.reservation.check_out must not be before check_in (${fields.check_out} < ${fields.check_in})`);
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
