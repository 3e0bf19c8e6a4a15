// TypeBox schemas of insights: the public Recommendation, Mention and Topic, and the operator's
// create bodies (also used by the NDJSON importer).
import { Type, type Static } from 'typebox';
import { DateTime, FiniteNumber, Nullable, Uuid } from '../../http/schemas.ts';
import { Sentiment } from '../reviews/schemas.ts';

const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

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
  name: Text(200),
  language: Opt(Text(35)),
  parent_label_id: Opt(Uuid),
  created_at: Opt(DateTime),
}, { additionalProperties: false });
export type TopicInput = Static<typeof TopicInput>;

export const MentionInput = Type.Object({
  canonical_label_id: Uuid,
  text: Text(10_000),
  source_field: Text(100),
  sentiment: Opt(Sentiment),
  confidence: Opt(FiniteNumber(0, 1)),
  custom_category_id: Opt(Uuid),
  created_at: Opt(DateTime),
}, { additionalProperties: false });
export type MentionInput = Static<typeof MentionInput>;

export const RecommendationInput = Type.Object({
  title: Text(500),
  body: Text(100_000),
  priority: Text(50),
  impact: Opt(Text(50)),
  canonical_label_id: Opt(Uuid),
  created_at: Opt(DateTime),
}, { additionalProperties: false });
export type RecommendationInput = Static<typeof RecommendationInput>;
