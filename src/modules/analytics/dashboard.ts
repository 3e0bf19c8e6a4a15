// What the dashboard's Analytics page shows for a user's reach: the score per month and platform
// over the last 12 months, the rating distribution, response rate and mean time to answer of this
// month and the three before, and the comparison of properties: all from aggregates (review_stats,
// review_monthly_stats), never a scan of reviews, so the page costs the same at a million reviews.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { monthlyScores, recentMonths, sumStatsByNode } from './repository.ts';

/** The distribution and responses cover this month and the months before it, this many in all. */
export const RECENT_MONTHS = 4;
const round1 = (x: number): number => Math.round(x * 10) / 10;

export interface MonthTotal { month: string; reviews: number; score: number | null }

export interface AnalyticsView {
  months: string[];
  /** platform → score per month (null: no rated review that month). */
  series: Array<{ platform: string; scores: Array<number | null> }>;
  distribution: Array<{ stars: number; reviews: number }>;
  responseRate: number | null;
  responseHours: number | null;
  properties: Array<{ node_id: string; reviews: number; score: number | null; responseRate: number | null }>;
}

/**
 * The page's figures for the user's reach, or for one property of it (`property`, already checked to
 * be one of `propertyIds`): then the score over time, the distribution and the responses are that
 * property's, and the comparison still shows every property.
 */
export async function analyticsView(db: Kysely<DB>, principal: Principal, propertyIds: readonly string[], now: Date, property: string | null = null): Promise<AnalyticsView> {
  const yearAgo = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth() + 1, 1)).toISOString();
  const recentFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (RECENT_MONTHS - 1), 1)).toISOString();
  const nodes = property === null ? principal.subtree : [property];
  const [monthly, recent, byNode] = await Promise.all([
    monthlyScores(db, nodes, yearAgo),
    recentMonths(db, nodes, recentFrom),
    sumStatsByNode(db, propertyIds),
  ]);
  const months = [...new Set(monthly.map((m) => m.month))].sort();
  const platforms = [...new Set(monthly.map((m) => m.platform))].sort();
  const cell = new Map(monthly.map((m) => [`${m.platform}/${m.month}`, m]));
  const series = platforms.map((platform) => ({
    platform,
    scores: months.map((month) => {
      const m = cell.get(`${platform}/${month}`);
      return m && m.rating_count > 0 ? round1(m.rating_sum / m.rating_count) : null;
    }),
  }));
  const distribution = [5, 4, 3, 2, 1].map((stars) => ({ stars, reviews: recent.stars[stars - 1]! }));
  return {
    months, series, distribution,
    responseRate: recent.reviews === 0 ? null : round1((100 * recent.replied) / recent.reviews),
    responseHours: recent.reply_timed === 0 ? null : round1(recent.reply_seconds / recent.reply_timed / 3600),
    properties: byNode.map((n) => ({
      node_id: n.node_id, reviews: n.reviews,
      score: n.rating_count === 0 ? null : round1(n.rating_sum / n.rating_count),
      responseRate: n.reviews === 0 ? null : round1((100 * n.replied) / n.reviews),
    })),
  };
}

/** This month's and last month's reviews and score (all platforms): two months of rows, not twelve. */
export async function lastTwoMonths(db: Kysely<DB>, principal: Principal, now: Date): Promise<{ thisMonth: MonthTotal | null; lastMonth: MonthTotal | null }> {
  const lastStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const rows = await monthlyScores(db, principal.subtree, lastStart.toISOString());
  const total = (month: string): MonthTotal | null => {
    const of = rows.filter((m) => m.month === month);
    if (of.length === 0) return null;
    const rated = of.reduce((n, m) => n + m.rating_count, 0);
    return { month, reviews: of.reduce((n, m) => n + m.reviews, 0), score: rated === 0 ? null : round1(of.reduce((n, m) => n + m.rating_sum, 0) / rated) };
  };
  return { thisMonth: total(now.toISOString().slice(0, 7)), lastMonth: total(lastStart.toISOString().slice(0, 7)) };
}
