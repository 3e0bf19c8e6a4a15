// /surveys: the published surveys of the user's reach with their responses and NPS; ?survey=<id>
// shows that survey's latest responses with their answers (never a respondent's e-mail or token:
// the public API's response and answer objects carry neither).
import type { AppContext } from '../../context.ts';
import { cursorsFor } from '../../http/pagination.ts';
import { getSurvey, listResponseAnswers, listResponses, surveySummaries } from '../../modules/surveys/service.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';
import { surveysCatalog } from './surveys-catalog.ts';

const RESPONSES_PER_PAGE = 20;

export const surveysPage: DashboardPage = {
  nav: [{ href: '/surveys', label: 'nav.surveys', least: 'viewer' }],
  routes(web, ctx: AppContext) {
    const cursors = cursorsFor(ctx.config.secretKey);
    web.get('/surveys', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), surveysCatalog);
      const query = request.query as { survey?: unknown; cursor?: unknown };
      const surveys = await surveySummaries(ctx.db, principal);
      let chosen = null;
      if (typeof query.survey === 'string' && query.survey !== '') {
        const survey = await getSurvey(ctx.db, principal, query.survey);
        const binding = `dashboard /surveys\n${survey.id}`;
        const page = cursors.sealPage(binding, await listResponses(ctx.db, principal, survey.id,
          cursors.open(binding, typeof query.cursor === 'string' ? query.cursor : undefined), RESPONSES_PER_PAGE));
        const answers = await Promise.all(page.data.map((r) => listResponseAnswers(ctx.db, principal, survey.id, r.id)));
        chosen = {
          survey, responses: page.data.map((r, i) => ({ ...r, answers: answers[i]! })),
          next: page.next_cursor ? `/surveys?survey=${survey.id}&cursor=${encodeURIComponent(page.next_cursor)}` : null,
        };
      }
      return renderPage(request, reply, 'dashboard/surveys.eta', { title: t('surveys.title'), surveys, chosen }, surveysCatalog);
    });
  },
};
