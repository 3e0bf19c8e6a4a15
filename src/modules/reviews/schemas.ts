// TypeBox schemas of reviews: the public Review, and the operator's create/reply/hide bodies.
import { Type, type Static } from 'typebox';
import { DateTime, FiniteNumber, Nullable, Uuid } from '../../http/schemas.ts';

export const Sentiment = Type.Union([Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative')]);

// Nullable fields of the Review answer as a type list (not anyOf): the response serialiser writes them
// without validating each value against every branch (the hot path of GET /reviews).
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const NullableDateTime = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });

export const Review = Type.Object({
  id: Uuid,
  platform: Type.String(),
  external_id: Type.String(),
  author: NullableString,
  rating: NullableNumber,
  rating_normalized: NullableNumber,
  title: NullableString,
  text: NullableString,
  url: NullableString,
  language: NullableString,
  sentiment: NullableString,
  owner_reply: NullableString,
  replied_at: NullableDateTime,
  reviewed_at: DateTime,
  node_id: Uuid,
  is_hidden: Type.Boolean(),
}, { $id: 'Review' });
export type Review = Static<typeof Review>;

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));

export const ReviewInput = Type.Object({
  node_id: Uuid,
  platform: Text(100),
  external_id: Text(255),
  reviewed_at: DateTime,
  author: Opt(Type.String({ maxLength: 500 })),
  rating: Opt(FiniteNumber(0, 5)),
  rating_normalized: Opt(FiniteNumber(0, 100)),
  title: Opt(Type.String({ maxLength: 1000 })),
  text: Opt(Type.String({ maxLength: 100_000 })),
  url: Opt(Type.String({ maxLength: 2000 })),
  language: Opt(Type.String({ maxLength: 35 })),
  sentiment: Opt(Sentiment),
  owner_reply: Opt(Type.String({ maxLength: 100_000 })),
  replied_at: Opt(DateTime),
  is_hidden: Opt(Type.Boolean()),
  recommend: Opt(Type.Boolean()),
}, { additionalProperties: false });
export type ReviewInput = Static<typeof ReviewInput>;

export const ReplyInput = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 100_000 }),
  replied_at: Type.Optional(Nullable(DateTime)),
}, { additionalProperties: false });

export const HideInput = Type.Object({ is_hidden: Type.Boolean() }, { additionalProperties: false });

export const AlertRuleInput = Type.Object({
  node_id: Uuid,
  max_rating: Opt(FiniteNumber(0, 5)),
  sentiments: Opt(Type.Array(Sentiment, { minItems: 1 })),
  keywords: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 })),
}, { additionalProperties: false });
export type AlertRuleInput = Static<typeof AlertRuleInput>;

export const AlertRule = Type.Object({
  id: Uuid,
  node_id: Uuid,
  max_rating: Nullable(Type.Number()),
  sentiments: Nullable(Type.Array(Type.String())),
  keywords: Nullable(Type.Array(Type.String())),
  created_at: DateTime,
});
