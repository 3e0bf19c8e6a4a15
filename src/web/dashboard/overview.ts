// GET /: the overview of the user's subtree: overall score and its trend (this month against the
// last), reviews this month, response rate, NPS of the last 90 days, the worst topics, and the
// unanswered negative reviews, from the aggregates the other pages use (no scans).
import type { AppContext } from '../../context.ts';
import { lastTwoMonths } from '../../modules/analytics/dashboard.ts';
import { scores } from '../../modules/analytics/service.ts';
import { insightsOverview } from '../../modules/insights/overview.ts';
import { MIN_MENTIONS } from '../../modules/insights/recommendations.ts';
import { listReviews } from '../../modules/reviews/service.ts';
import { listVisibleProperties } from '../../modules/nodes/service.ts';
import { npsOf } from '../../modules/surveys/service.ts';
import { DAY_MS } from '../../lib/time.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';
import { topicName } from './topic-names.ts';

/** How much of an unanswered review the overview quotes: cut at a word, with an ellipsis. */
const EXCERPT = 140;
const excerpt = (text: string): string => {
  if (text.length <= EXCERPT) return text;
  const cut = text.slice(0, EXCERPT);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), EXCERPT - 20)).trimEnd()}…`;
};

export const overviewPage: DashboardPage = {
  nav: [{ href: '/', label: 'nav.overview', least: 'viewer' }],
  routes(web, ctx: AppContext) {
    web.get('/', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const t = pageTranslator(languageOf(request));
      const principal = scopeOf(request);
      const now = new Date();
      // A part whose feature the account's plan leaves out is not shown (the figures above them are the home page's own).
      const plan = principal.features;
      const [totals, months, insights, nps, unanswered, properties] = await Promise.all([
        scores(ctx.db, principal),
        lastTwoMonths(ctx.db, principal, now),
        plan.has('insights') ? insightsOverview(ctx.db, principal, now) : null,
        plan.has('surveys') ? npsOf(ctx.db, principal, new Date(now.getTime() - 90 * DAY_MS).toISOString()) : undefined,
        // More than five are read: hidden ones (taken out of the scores) are not waiting for an answer.
        plan.has('reviews') ? listReviews(ctx.db, principal, null, 25, { replied: false, rating_max: 2 }) : null,
        listVisibleProperties(ctx.db, principal, ctx.propertyNames),
      ]);
      const names = new Map(properties.map((p) => [p.id, p.name]));
      // Judged from as many mentions as the engine's recommendations need: three unhappy guests are not yet a topic's trouble.
      const worst = insights?.trends.filter((x) => x.recent.total >= MIN_MENTIONS)
        .map((x) => ({ name: topicName(languageOf(request), x.name), topicId: x.topicId, total: x.recent.total, negative: Math.round((100 * x.recent.negative) / x.recent.total) }))
        .filter((x) => x.negative > 0).sort((a, b) => b.negative - a.negative).slice(0, 3);
      return renderPage(request, reply, 'dashboard/overview.eta', {
        title: t('overview.title'), scores: totals, nps, worst, fewMentions: MIN_MENTIONS,
        // Each with its hotel and a link to it in the inbox (the same filter: the five newest are on its first page).
        unanswered: unanswered?.data.filter((r) => !r.is_hidden).slice(0, 5)
          .map((r) => ({ ...r, property: names.get(r.node_id) ?? '', excerpt: excerpt(r.text ?? r.title ?? '') })),
        thisMonth: months.thisMonth, lastMonth: months.lastMonth,
      });
    });
  },
};
