// TypeBox building blocks shared by every module's schemas.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './error-codes.ts';

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

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
