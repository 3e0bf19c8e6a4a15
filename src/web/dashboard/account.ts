// GET /account: who the user is and what they reach; POST /account/language: the pages' language
// (English, German, or as the browser asks); POST /account/password: a new password (the current one
// first; every other session of the user ends); GET /settings: on to the settings the user has.
import type { AppContext } from '../../context.ts';
import { clientAddress } from '../../http/client-address.ts';
import { listVisibleNodes } from '../../modules/nodes/service.ts';
import { changeOwnPassword } from '../../modules/users/password-change.ts';
import { roleAtLeast, setLanguage } from '../../modules/users/service.ts';
import { LoginThrottle } from '../../modules/users/sign-in.ts';
import { LANGUAGES } from './catalog.ts';
import { field, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf, userOf } from './session.ts';

const PASSWORD_FIELDS = ['current_password', 'new_password', 'repeat_password'];

/** The notice of ?saved=: 1 for the language (the form's first address), password for a new password. */
const savedNotice = (saved: unknown): 'language' | 'password' | null => (saved === '1' ? 'language' : saved === 'password' ? 'password' : null);

export const accountPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    const throttle = new LoginThrottle(ctx.rateLimits, ctx.config);
    type Shown = { saved?: 'language' | 'password' | null; fault?: string | null; passwordFault?: FormFault | null };
    const show = async (request: Parameters<typeof scopeOf>[0], reply: Parameters<typeof renderPage>[1], extra: Shown = {}) => {
      const t = pageTranslator(languageOf(request));
      const principal = scopeOf(request);
      const node = principal.isAccountRoot ? null : (await listVisibleNodes(ctx.db, principal))[0]?.name ?? null;
      return renderPage(request, reply, 'dashboard/account.eta', {
        title: t('account.title'), node, languages: LANGUAGES, language: userOf(request).language, saved: extra.saved ?? null, fault: extra.fault ?? null,
        passwordFault: extra.passwordFault ?? null, pageUrl: '/account',
      });
    };

    // /settings typed by hand: the settings an owner has (Settings → API keys, where the nav goes), else
    // the one page of settings every user has (the language, here).
    web.get('/settings', { preHandler: requireUser('viewer') }, async (request, reply) =>
      reply.redirect(roleAtLeast(userOf(request).role, 'owner') ? '/settings/api' : '/account', 303));

    web.get('/account', { preHandler: requireUser('viewer') }, async (request, reply) =>
      show(request, reply, { saved: savedNotice((request.query as { saved?: unknown }).saved) }));

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

    web.post('/account/password', { preHandler: requireUser('viewer') }, async (request, reply) => {
      const user = userOf(request);
      const t = pageTranslator(languageOf(request));
      const refused = (status: number, fields: Array<[string, string]>) =>
        show(request, reply.status(status), { passwordFault: { fields: new Map(fields), general: null, status } });
      try {
        const result = await changeOwnPassword(ctx.db, throttle, user, {
          current: field(request, 'current_password'), next: field(request, 'new_password'), repeated: field(request, 'repeat_password'),
        }, clientAddress(request.ip));
        if (!result.ok && result.reason === 'locked') {
          reply.header('Retry-After', String(result.retryS));
          return refused(429, [['current_password', t('account.passwordLocked', { minutes: Math.ceil(result.retryS / 60) })]]);
        }
        if (!result.ok) return refused(400, [['current_password', t('account.passwordWrong')]]);
      } catch (error) {
        const fault = formFault(error, PASSWORD_FIELDS, languageOf(request));
        return show(request, reply.status(fault.status), { passwordFault: fault });
      }
      // The other sessions are gone from the database; this instance forgets them at once too.
      ctx.sessions.clear();
      return reply.redirect('/account?saved=password', 303);
    });
  },
};
