// GET /account: who the user is and what they reach; POST /account/language: the pages' language
// (English, German, or as the browser asks); GET /settings: on to the settings the user has.
import type { AppContext } from '../../context.ts';
import { listVisibleNodes } from '../../modules/nodes/service.ts';
import { roleAtLeast, setLanguage } from '../../modules/users/service.ts';
import { LANGUAGES } from './catalog.ts';
import { field, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf, userOf } from './session.ts';

export const accountPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    const show = async (request: Parameters<typeof scopeOf>[0], reply: Parameters<typeof renderPage>[1], extra: { saved?: boolean; fault?: string | null } = {}) => {
      const t = pageTranslator(languageOf(request));
      const principal = scopeOf(request);
      const node = principal.isAccountRoot ? null : (await listVisibleNodes(ctx.db, principal))[0]?.name ?? null;
      return renderPage(request, reply, 'dashboard/account.eta', {
        title: t('account.title'), node, languages: LANGUAGES, language: userOf(request).language, saved: extra.saved ?? false, fault: extra.fault ?? null, pageUrl: '/account',
      });
    };

    // /settings typed by hand: the settings an owner has (Settings → API keys, where the nav goes), else
    // the one page of settings every user has (the language, here).
    web.get('/settings', { preHandler: requireUser('viewer') }, async (request, reply) =>
      reply.redirect(roleAtLeast(userOf(request).role, 'owner') ? '/settings/api' : '/account', 303));

    web.get('/account', { preHandler: requireUser('viewer') }, async (request, reply) =>
      show(request, reply, { saved: (request.query as { saved?: unknown }).saved === '1' }));

    web.post('/account/language', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const language = field(request, 'language');
      try {
        await setLanguage(ctx.db, userOf(request).userId, language === '' ? null : language);
        ctx.sessions.clear();
      } catch (error) {
        const fault = formFault(error, ['language'], languageOf(request));
        return show(request, reply.status(fault.status), { fault: fault.fields.get('language') ?? fault.general });
      }
      return reply.redirect('/account?saved=1', 303);
    });
  },
};
