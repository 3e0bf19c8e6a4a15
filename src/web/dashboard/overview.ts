// GET /: the overview of the user's subtree from the same aggregates as GET /api/v4/analytics/scores.
import type { AppContext } from '../../context.ts';
import { scores } from '../../modules/analytics/service.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';

export const overviewPage: DashboardPage = {
  nav: [{ href: '/', label: 'nav.overview', least: 'viewer' }],
  routes(web, ctx: AppContext) {
    web.get('/', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const t = pageTranslator(languageOf(request));
      return renderPage(request, reply, 'dashboard/overview.eta', { title: t('overview.title'), scores: await scores(ctx.db, scopeOf(request)) });
    });
  },
};
