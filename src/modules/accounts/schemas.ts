// TypeBox schemas of the operator's accounts.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';
import { FEATURES } from '../../access/scopes.ts';

const Feature = Type.Union(FEATURES.map((f) => Type.Literal(f)));

export const Account = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan_features: Type.Array(Type.String()),
  webhook_endpoint_limit: Type.Integer(),
  created_at: DateTime,
});
export type Account = Static<typeof Account>;

export const AccountInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  plan_features: Type.Optional(Nullable(Type.Array(Feature, { uniqueItems: true }))),
  webhook_endpoint_limit: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100_000 }))),
}, { additionalProperties: false });
export type AccountInput = Static<typeof AccountInput>;

// A null name is an omitted one (operator.md: optional fields may be sent as null); a null list of
// features or limit is the default, as at creation.
export const AccountPatch = Type.Object({
  name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  plan_features: AccountInput.properties.plan_features,
  webhook_endpoint_limit: AccountInput.properties.webhook_endpoint_limit,
}, { additionalProperties: false, minProperties: 1 });
export type AccountPatch = Static<typeof AccountPatch>;

export const AdminListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
}, { additionalProperties: false });
export type AdminListQuery = Static<typeof AdminListQuery>;
