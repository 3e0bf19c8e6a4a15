// What the dashboard's Analytics page shows for a user's reach: the score per month and platform
// over the last 12 months, the rating distribution, response rate and mean time to answer of the
// last 90 days, and the comparison of properties from the review_stats aggregates.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { monthlyScores, recentReplies, sumStatsByNode } from './repository.ts';

const DAY_MS = 86_400_000;
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

export async function analyticsView(db: Kysely<DB>, principal: Principal, propertyIds: readonly string[], now: Date): Promise<AnalyticsView> {
  const yearAgo = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth() + 1, 1)).toISOString();
  const [monthly, replies, byNode] = await Promise.all([
    monthlyScores(db, principal.subtree, yearAgo),
    recentReplies(db, principal.subtree, new Date(now.getTime() - 90 * DAY_MS).toISOString()),
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
  const distribution = [5, 4, 3, 2, 1].map((stars) => ({ stars, reviews: replies.filter((r) => r.stars === stars).reduce((n, r) => n + r.reviews, 0) }));
  const reviews = replies.reduce((n, r) => n + r.reviews, 0);
  const replied = replies.reduce((n, r) => n + r.replied, 0);
  const seconds = replies.reduce((n, r) => n + r.reply_seconds, 0);
  return {
    months, series, distribution,
    responseRate: reviews === 0 ? null : round1((100 * replied) / reviews),
    responseHours: replied === 0 ? null : round1(seconds / replied / 3600),
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
