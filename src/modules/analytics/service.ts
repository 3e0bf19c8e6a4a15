// Analytics rules: scores of the visible (not hidden) reviews of the key's subtree, from the aggregates.
// Averages and rates are rounded half away from zero to one decimal; null where nothing is counted.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import { timeRange } from '../../http/time-range.ts';
import { narrowedScope } from '../nodes/service.ts';
import { sumReviewsByPlatform, sumStatsByPlatform } from './repository.ts';
import type { AnalyticsScores, ScoresQuery } from './schemas.ts';

/**
 * numerator / denominator × scale, to one decimal, or null for an empty denominator. Computed from
 * the sums, so a tie like 42.5 is exact and rounds up; the tiny epsilon absorbs the float drift that
 * summed fractional ratings can carry (e.g. 4.249999999999999 for 4.25). Values are never negative.
 */
function ratio1(numerator: number, denominator: number, scale = 1): number | null {
  if (denominator <= 0) return null;
  return Math.round((numerator * scale * 10) / denominator + 1e-9) / 10;
}

/**
 * Scores of the key's subtree, or of a node in it (`node_id`), of some platforms, of a time range.
 * Without a range they come from the review_stats aggregates; a range reads the reviews of that range
 * on the (node, reviewed_at) index, since the aggregates keep no time.
 */
export async function scores(db: Kysely<DB>, principal: Principal, query: ScoresQuery = {}): Promise<AnalyticsScores> {
  const scope = query.node_id === undefined ? subtreeScope(principal) : await narrowedScope(db, principal, query.node_id);
  const [from, to] = timeRange(query);
  const only = query.platform === undefined ? undefined : [...new Set(query.platform)];
  const sums = from === undefined && to === undefined
    ? (await sumStatsByPlatform(db, scope)).filter((p) => only === undefined || only.includes(p.platform))
    : await sumReviewsByPlatform(db, scope, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), ...(only ? { platforms: only } : {}) });
  // A platform whose reviews are all hidden keeps an aggregate row of zeros: it is not shown.
  const platforms = sums.filter((p) => p.reviews > 0);
  const total = (key: keyof (typeof platforms)[number] & string): number =>
    platforms.reduce((sum, p) => sum + (p[key] as number), 0);
  return {
    node_id: query.node_id ?? principal.nodeId,
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
