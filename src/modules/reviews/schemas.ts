// TypeBox schemas of reviews: the public Review, and the operator's create/reply/hide bodies.
import { Type, type Static } from 'typebox';
import {
  DateTime, PageQuery, FiniteNumber, NonEmptyString, Nullable, NullableDateTime, NullableNumber, NullableString, OptionalNullable, Uuid,
} from '../../http/schemas.ts';

export const Sentiment = Type.Union([Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative')]);

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
  created_at: DateTime,
  updated_at: Type.String({ format: 'date-time', description: 'the change stamp of its last change (reply, hide, edit): the sync order' }),
}, { $id: 'Review' });
export type Review = Static<typeof Review>;

export const ReviewInput = Type.Object({
  node_id: Uuid,
  platform: NonEmptyString(100),
  external_id: NonEmptyString(255),
  reviewed_at: DateTime,
  author: OptionalNullable(Type.String({ maxLength: 500 })),
  rating: OptionalNullable(FiniteNumber(0, 5)),
  rating_normalized: OptionalNullable(FiniteNumber(0, 100)),
  title: OptionalNullable(Type.String({ maxLength: 1000 })),
  text: OptionalNullable(Type.String({ maxLength: 100_000 })),
  url: OptionalNullable(Type.String({ maxLength: 2000 })),
  language: OptionalNullable(Type.String({ maxLength: 35 })),
  sentiment: OptionalNullable(Sentiment),
  owner_reply: OptionalNullable(Type.String({ maxLength: 100_000 })),
  replied_at: OptionalNullable(DateTime),
  is_hidden: OptionalNullable(Type.Boolean()),
  recommend: OptionalNullable(Type.Boolean()),
}, { additionalProperties: false });
export type ReviewInput = Static<typeof ReviewInput>;

export const ReplyInput = Type.Object({
  text: NonEmptyString(100_000),
  replied_at: OptionalNullable(DateTime),
}, { additionalProperties: false });

export const HideInput = Type.Object({ is_hidden: Type.Boolean() }, { additionalProperties: false });

export const AlertRuleInput = Type.Object({
  node_id: Uuid,
  max_rating: OptionalNullable(FiniteNumber(0, 5)),
  sentiments: OptionalNullable(Type.Array(Sentiment, { minItems: 1 })),
  keywords: OptionalNullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 })),
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

/** GET /reviews: the page parameters and the filters; every combination pages with a cursor bound to it. */
export const ReviewListQuery = Type.Object({
  ...PageQuery.properties,
  platform: Type.Optional(Type.Array(NonEmptyString(100), { maxItems: 20, description: 'repeatable: reviews of any of these platforms' })),
  rating_min: Type.Optional(FiniteNumber(0, 5)),
  rating_max: Type.Optional(FiniteNumber(0, 5)),
  language: Type.Optional(NonEmptyString(35)),
  replied: Type.Optional(Type.Boolean({ description: 'true: with an owner reply; false: without' })),
  node_id: Type.Optional(Uuid),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'reviewed_at at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'reviewed_at before (exclusive)' })),
  sort: Type.Optional(Type.Union([Type.Literal('reviewed_at'), Type.Literal('updated_at')], {
    description: 'reviewed_at (default): newest first; updated_at: oldest change first, for incremental sync',
  })),
  updated_since: Type.Optional(Type.String({ format: 'date-time', description: 'with sort=updated_at: changes at or after this instant' })),
}, { additionalProperties: false });
export type ReviewListQuery = Static<typeof ReviewListQuery>;
