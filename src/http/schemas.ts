// TypeBox building blocks shared by every module's schemas.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './error-codes.ts';

export const Uuid = Type.String({ format: 'uuid' });
/** Accepted on input only as src/lib/instant.ts defines it (validation.ts registers that as "date-time"). */
export const DateTime = Type.String({ format: 'date-time' });

/**
 * A number a client sends: always finite (validation.ts refuses 1e309 = Infinity everywhere) and,
 * with this, within a documented range. Scores and numeric answers without a scale of their own
 * take MEASURE_LIMIT: sums of a million of them stay exact integers far below overflow.
 */
export const MEASURE_LIMIT = 1e12;
export const FiniteNumber = (minimum = -MEASURE_LIMIT, maximum = MEASURE_LIMIT) => Type.Number({ minimum, maximum });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A body field that may be left out or sent as null. */
export const OptionalNullable = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/** A string of 1 to maxLength characters. */
export const NonEmptyString = (maxLength: number) => Type.String({ minLength: 1, maxLength });

// Nullable answer fields as a type list (not anyOf): the response serialiser writes them without
// validating each value against every branch (the hot paths: GET /reviews, POST /guests).
export const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
export const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
export const NullableDateTime = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });

export const ErrorBody = Type.Object({
  error: Type.String({ description: 'for people: what went wrong, naming the field' }),
  code: Type.Optional(Type.String({ enum: Object.keys(ERROR_CODES), description: 'for programs: the rule that was broken (listed in the README)' })),
}, { $id: 'Error', description: 'Every non-2xx answer' });

/** Path ids are declared as plain strings: a value that is not a UUID answers 404, not 400. */
export const IdParams = Type.Object({ id: Type.String() });

export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'opaque; the previous page\'s next_cursor' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
}, { additionalProperties: false });

export const Page = <T extends TSchema>(item: T) => Type.Object({
  data: Type.Array(item),
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});

export const List = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item) });

/** Error answers every public route can give; add 404/409/… per route. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries([401, 403, ...statuses].map((s) => [s, ErrorBody]));
