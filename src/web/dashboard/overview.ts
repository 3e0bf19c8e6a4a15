// GET /: the overview of the user's subtree: overall score and its trend (this month against the
// last), reviews this month, response rate, NPS of the last 90 days, the worst topics, and the
// unanswered negative reviews, from the aggregates the other pages use (no scans).
import type { AppContext } from '../../context.ts';
import { lastTwoMonths } from '../../modules/analytics/dashboard.ts';
import { scores } from '../../modules/analytics/service.ts';
import { insightsOverview } from '../../modules/insights/overview.ts';
import { listReviews } from '../../modules/reviews/service.ts';
import { npsOf } from '../../modules/surveys/service.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';

const DAY_MS = 86_400_000;

export const overviewPage: DashboardPage = {
  nav: [{ href: '/', label: 'nav.overview', least: 'viewer' }],
  routes(web, ctx: AppContext) {
    web.get('/', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const t = pageTranslator(languageOf(request));
      const principal = scopeOf(request);
      const now = new Date();
      const [totals, months, insights, nps, unanswered] = await Promise.all([
        scores(ctx.db, principal),
        lastTwoMonths(ctx.db, principal, now),
        insightsOverview(ctx.db, principal, now),
        npsOf(ctx.db, principal, new Date(now.getTime() - 90 * DAY_MS).toISOString()),
        listReviews(ctx.db, principal, null, 5, { replied: false, rating_max: 2 }),
      ]);
      const worst = insights.trends.filter((x) => x.recent.total >= 3)
        .map((x) => ({ name: x.name, topicId: x.topicId, total: x.recent.total, negative: Math.round((100 * x.recent.negative) / x.recent.total) }))
        .filter((x) => x.negative > 0).sort((a, b) => b.negative - a.negative).slice(0, 3);
      return renderPage(request, reply, 'dashboard/overview.eta', {
        title: t('overview.title'), scores: totals, nps, worst, unanswered: unanswered.data,
        thisMonth: months.thisMonth, lastMonth: months.lastMonth,
      });
    });
  },
};
