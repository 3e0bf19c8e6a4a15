// Analytics rules: scores of the visible (not hidden) reviews of the key's subtree, from the aggregates.
// Averages and rates are rounded half away from zero to one decimal; null where nothing is counted.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import { sumStatsByPlatform } from './repository.ts';
import type { AnalyticsScores } from './schemas.ts';

/**
 * numerator / denominator × scale, to one decimal, or null for an empty denominator. Computed from
 * the sums, so a tie like 42.5 is exact and rounds up; the tiny epsilon absorbs the float drift that
 * summed fractional ratings can carry (e.g. 4.249999999999999 for 4.25). Values are never negative.
 */
function ratio1(numerator: number, denominator: number, scale = 1): number | null {
  if (denominator <= 0) return null;
  return Math.round((numerator * scale * 10) / denominator + 1e-9) / 10;
}

export async function scores(db: Kysely<DB>, principal: Principal): Promise<AnalyticsScores> {
  // A platform whose reviews are all hidden keeps an aggregate row of zeros: it is not shown.
  const platforms = (await sumStatsByPlatform(db, subtreeScope(principal))).filter((p) => p.reviews > 0);
  const total = (key: keyof (typeof platforms)[number] & string): number =>
    platforms.reduce((sum, p) => sum + (p[key] as number), 0);
  return {
    node_id: principal.nodeId,
    overall_score: ratio1(total('rating_sum'), total('rating_count')),
    overall_score_normalized: ratio1(total('normalized_sum'), total('normalized_count')),
    total_reviews: total('reviews'),
    recommend_rate: ratio1(total('recommend_yes'), total('recommend_count'), 100),
    response_rate: ratio1(total('replied'), total('reviews'), 100),
    platform_scores: platforms.map((p) => ({
      platform: p.platform,
      score: ratio1(p.rating_sum, p.rating_count),
      score_normalized: ratio1(p.normalized_sum, p.normalized_count),
      reviews: p.reviews,
    })),
  };
}
