// TypeBox schemas of insights: the public Recommendation, Mention and Topic, and the operator's
// create bodies (also used by the NDJSON importer).
import { Type, type Static } from 'typebox';
import { DateTime, FiniteNumber, NonEmptyString, Nullable, OptionalNullable, PageQuery, Uuid } from '../../http/schemas.ts';
import { Sentiment } from '../reviews/schemas.ts';


export const Recommendation = Type.Object({
  id: Uuid,
  title: Type.String(),
  body: Type.String(),
  priority: Type.String(),
  impact: Nullable(Type.String()),
  canonical_label_id: Nullable(Uuid),
  created_at: DateTime,
}, { $id: 'Recommendation' });
export type Recommendation = Static<typeof Recommendation>;

export const Mention = Type.Object({
  id: Uuid,
  review_id: Uuid,
  source_field: Type.String(),
  text: Type.String(),
  sentiment: Nullable(Type.String()),
  canonical_label_id: Uuid,
  custom_category_id: Nullable(Uuid),
  confidence: Nullable(Type.Number()),
  is_hidden: Type.Boolean({ description: 'mirrors the source review\'s current flag' }),
  created_at: DateTime,
}, { $id: 'Mention' });
export type Mention = Static<typeof Mention>;

export const Topic = Type.Object({
  id: Uuid,
  name: Type.String(),
  language: Nullable(Type.String()),
  parent_label_id: Nullable(Uuid),
}, { $id: 'Topic' });
export type Topic = Static<typeof Topic>;

// ---- operator bodies ----

export const TopicInput = Type.Object({
  name: NonEmptyString(200),
  language: OptionalNullable(NonEmptyString(35)),
  parent_label_id: OptionalNullable(Uuid),
  created_at: OptionalNullable(DateTime),
}, { additionalProperties: false });
export type TopicInput = Static<typeof TopicInput>;

export const MentionInput = Type.Object({
  canonical_label_id: Uuid,
  text: NonEmptyString(10_000),
  source_field: NonEmptyString(100),
  sentiment: OptionalNullable(Sentiment),
  confidence: OptionalNullable(FiniteNumber(0, 1)),
  custom_category_id: OptionalNullable(Uuid),
  created_at: OptionalNullable(DateTime),
}, { additionalProperties: false });
export type MentionInput = Static<typeof MentionInput>;

export const RecommendationInput = Type.Object({
  title: NonEmptyString(500),
  body: NonEmptyString(100_000),
  priority: NonEmptyString(50),
  impact: OptionalNullable(NonEmptyString(50)),
  canonical_label_id: OptionalNullable(Uuid),
  created_at: OptionalNullable(DateTime),
}, { additionalProperties: false });
export type RecommendationInput = Static<typeof RecommendationInput>;

// ---- an account's own categories (topics with keyword lists the engine matches) ----

/** Keyword lists per language code ("en", "de", …): words or phrases, matched case-insensitively. */
export const CategoryKeywords = Type.Record(Type.String({ pattern: '^[a-z]{2,3}$' }), Type.Array(NonEmptyString(100), { maxItems: 200 }), { maxProperties: 20 });

/** An account's own topic may carry keyword lists, as a category does (insights.md). */
export const AccountTopicInput = Type.Object({
  ...TopicInput.properties,
  keywords: OptionalNullable(CategoryKeywords),
}, { additionalProperties: false });
export type AccountTopicInput = Static<typeof AccountTopicInput>;

export const CategoryInput = Type.Object({
  name: NonEmptyString(200),
  keywords: CategoryKeywords,
  parent_label_id: OptionalNullable(Uuid),
}, { additionalProperties: false });
export type CategoryInput = Static<typeof CategoryInput>;

export const CategoryPatch = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
  keywords: Type.Optional(CategoryKeywords),
}, { additionalProperties: false });
export type CategoryPatch = Static<typeof CategoryPatch>;

export const Category = Type.Object({
  id: Uuid,
  account_id: Uuid,
  name: Type.String(),
  parent_label_id: Nullable(Uuid),
  keywords: Type.Record(Type.String(), Type.Array(Type.String())),
  created_at: DateTime,
}, { $id: 'Category' });
export type Category = Static<typeof Category>;

export const MentionListQuery = Type.Object({
  ...PageQuery.properties,
  topic_id: Type.Optional(Uuid),
  sentiment: Type.Optional(Sentiment),
  node_id: Type.Optional(Uuid),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created_at at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created_at before (exclusive)' })),
}, { additionalProperties: false });
export type MentionListQuery = Static<typeof MentionListQuery>;
