// TypeBox schema of the public AnalyticsScores.
import { Type, type Static } from 'typebox';
import { NonEmptyString, Nullable, Uuid } from '../../http/schemas.ts';

const PlatformScore = Type.Object({
  platform: Type.String(),
  score: Nullable(Type.Number({ description: '0 to 5, one decimal' })),
  score_normalized: Nullable(Type.Number({ description: '0 to 100, one decimal' })),
  reviews: Type.Integer(),
}, { $id: 'PlatformScore' });
export type PlatformScore = Static<typeof PlatformScore>;

export const AnalyticsScores = Type.Object({
  node_id: Uuid,
  overall_score: Nullable(Type.Number({ description: 'average rating of visible reviews, 0 to 5, one decimal' })),
  overall_score_normalized: Nullable(Type.Number({ description: 'average normalised rating, 0 to 100, one decimal' })),
  total_reviews: Type.Integer({ description: 'visible (not hidden) reviews' }),
  recommend_rate: Nullable(Type.Number({ description: '% of reviews with a recommendation flag that recommend, one decimal' })),
  response_rate: Nullable(Type.Number({ description: '% of reviews with an owner reply, one decimal' })),
  platform_scores: Type.Array(PlatformScore),
}, { $id: 'AnalyticsScores' });
export type AnalyticsScores = Static<typeof AnalyticsScores>;

export const ScoresQuery = Type.Object({
  node_id: Type.Optional(Uuid),
  platform: Type.Optional(Type.Array(NonEmptyString(100), { maxItems: 20, description: 'repeatable: only reviews of these platforms' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'reviewed_at at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'reviewed_at before (exclusive)' })),
}, { additionalProperties: false });
export type ScoresQuery = Static<typeof ScoresQuery>;
