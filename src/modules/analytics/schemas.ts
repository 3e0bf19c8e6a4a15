// TypeBox schema of the public AnalyticsScores.
import { Type, type Static } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';

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
