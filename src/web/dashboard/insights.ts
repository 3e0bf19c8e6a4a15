// /insights: the heat map of topics by property (negative and positive shares of the last 90 days),
// each topic's trend against the 90 days before, a topic's latest mentions with their review
// (?topic=<id>), and the recommendations, all within the user's reach (recommendationsInReach).
import type { AppContext } from '../../context.ts';
import { insightsOverview, topicMentions } from '../../modules/insights/overview.ts';
import { recommendationText } from '../../modules/insights/recommendation-text.ts';
import { MIN_MENTIONS } from '../../modules/insights/recommendations.ts';
import { recommendationsInReach } from '../../modules/insights/service.ts';
import { listVisibleProperties } from '../../modules/nodes/service.ts';
import { INSIGHT_WORDS, insightsCatalog } from './insights-catalog.ts';
import { topicName } from './topic-names.ts';
import type { DashboardPage } from './plugin.ts';
import { heatClass } from './heat.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';

const PRIORITIES = ['high', 'medium', 'low'];
const urgency = (priority: string): number => (PRIORITIES.includes(priority) ? PRIORITIES.indexOf(priority) : PRIORITIES.length);

export const insightsPage: DashboardPage = {
  nav: [{ href: '/insights', label: 'nav.insights', least: 'viewer', feature: 'insights' }],
  routes(web, ctx: AppContext) {
    web.get('/insights', { preHandler: requireUser('viewer', 'insights') }, async (request, reply) => {
      const principal = scopeOf(request);
      const language = languageOf(request);
      const t = pageTranslator(language, insightsCatalog);
      const topicId = (request.query as { topic?: unknown }).topic;
      const [overview, properties, recommendations, chosen] = await Promise.all([
        insightsOverview(ctx.db, principal, new Date()),
        listVisibleProperties(ctx.db, principal, ctx.propertyNames),
        recommendationsInReach(ctx.db, principal, 20),
        typeof topicId === 'string' && topicId !== '' ? topicMentions(ctx.db, principal, topicId) : Promise.resolve(null),
      ]);
      const names = new Map(properties.map((p) => [p.id, p.name]));
      // The engine's topics in the page's language (the overview and trends hold only those).
      const shown = {
        ...overview,
        topics: overview.topics.map((topic) => ({ ...topic, name: topicName(language, topic.name) })),
        trends: overview.trends.map((trend) => ({ ...trend, name: topicName(language, trend.name) })),
      };
      // A generated recommendation said in the page's language from its figures; an operator's as written.
      // Most urgent first (high, medium, low, then any other word an operator used), newest first within each.
      const recommendationsShown = recommendations.map(({ facts, ...r }) =>
        (facts === null ? r : { ...r, ...recommendationText(facts, language, topicName(language, facts.topic)) }))
        .sort((a, b) => urgency(a.priority) - urgency(b.priority));
      const chosenShown = chosen?.topic.engine ? { ...chosen, topic: { ...chosen.topic, name: topicName(language, chosen.topic.name) } } : chosen;
      return renderPage(request, reply, 'dashboard/insights.eta', {
        title: t('insights.title'), overview: shown, properties, names, heat: heatClass, fewMentions: MIN_MENTIONS, recommendations: recommendationsShown, chosen: chosenShown,
        // A sentiment or priority the engine writes, in the page's language; one an operator wrote stays as it is.
        word: (value: string) => (INSIGHT_WORDS.has(value) ? t(`insights.word.${value}` as 'insights.word.high') : value),
      }, insightsCatalog);
    });
  },
};
