// "Forgot your password?" under the sign-in form: GET/POST /login/forgot asks for the e-mail and sends
// a link (src/modules/users/password-reset.ts) through SMTP_URL, or into MAIL_DIR; GET/POST
// /login/reset/<token> chooses the new password, then on to sign-in. Without a way to send e-mail
// the first page says whom to ask instead.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { clientAddress } from '../../http/client-address.ts';
import { createMailer } from '../../mail/transport.ts';
import { completePasswordReset, passwordResetFor, RESET_TTL_S, requestPasswordReset } from '../../modules/users/password-reset.ts';
import { field, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { DASHBOARD_CSS, pageTranslator } from './render.ts';
import { languageOf } from './session.ts';

const RESET_FIELDS = ['new_password', 'repeat_password'];

const tokenOf = (request: FastifyRequest): string => (request.params as { token: string }).token;

export const passwordResetPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    const mailer = createMailer(ctx.config);
    web.addHook('onClose', async () => mailer?.close());

    /** A signed-out page (the sign-in page's frame), never cached. */
    const show = (request: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown>) => {
      const lang = languageOf(request);
      const t = pageTranslator(lang);
      return reply.header('Cache-Control', 'no-store').view(view, {
        styles: [DASHBOARD_CSS], lang, t, csrf: reply.pageCsrfToken(), canMail: mailer !== null, minutes: RESET_TTL_S / 60, ...data,
      });
    };
    const showForgot = (request: FastifyRequest, reply: FastifyReply, data: { email: string; sent: boolean; fault: string | null }) =>
      show(request, reply, 'dashboard/forgot.eta', { title: pageTranslator(languageOf(request))('reset.askTitle'), ...data });
    const showReset = (request: FastifyRequest, reply: FastifyReply, data: { email: string | null; fault: FormFault | null }) =>
      show(request, reply.status(data.email === null ? 404 : reply.statusCode), 'dashboard/reset.eta', {
        title: pageTranslator(languageOf(request))('reset.chooseTitle'), token: tokenOf(request), ...data,
      });

    web.get('/login/forgot', async (request, reply) => showForgot(request, reply, { email: '', sent: false, fault: null }));

    web.post('/login/forgot', async (request, reply) => {
      const email = field(request, 'email');
      if (mailer === null) return showForgot(request, reply, { email, sent: false, fault: null });
      const asked = await requestPasswordReset(ctx.db, ctx.rateLimits, email, clientAddress(request.ip));
      if (!asked.ok) {
        const t = pageTranslator(languageOf(request));
        reply.header('Retry-After', String(asked.retryS));
        return showForgot(request, reply.status(429), { email, sent: false, fault: t('reset.tooMany', { minutes: Math.ceil(asked.retryS / 60) }) });
      }
      if (asked.link) {
        const link = asked.link;
        const t = pageTranslator(link.language ?? languageOf(request));
        const url = `${ctx.config.publicUrl}/login/reset/${link.token}`;
        // After the answer, not before it: how long the answer takes does not tell whether a user has the e-mail.
        setImmediate(() => {
          mailer.send({
            from: ctx.config.mailFrom, to: link.to, subject: t('reset.mailSubject'),
            text: t('reset.mailText', { email: link.to, site: ctx.config.publicUrl, url, minutes: RESET_TTL_S / 60 }),
            fileName: `password-reset-${Date.now()}`,
          }).catch((error: unknown) => request.log.warn({ err: error }, 'a password reset e-mail could not be sent'));
        });
      }
      return showForgot(request, reply, { email, sent: true, fault: null });
    });

    web.get('/login/reset/:token', async (request, reply) =>
      showReset(request, reply, { email: await passwordResetFor(ctx.db, tokenOf(request)), fault: null }));

    web.post('/login/reset/:token', async (request, reply) => {
      const token = tokenOf(request);
      try {
        if (await completePasswordReset(ctx.db, token, field(request, 'new_password'), field(request, 'repeat_password'))) {
          // Every session of the user ended in the database; this instance forgets them at once too.
          ctx.sessions.clear();
          return reply.redirect('/login?reset=1', 303);
        }
        return showReset(request, reply, { email: null, fault: null });
      } catch (error) {
        const fault = formFault(error, RESET_FIELDS, languageOf(request));
        return showReset(request, reply.status(fault.status), { email: await passwordResetFor(ctx.db, token), fault });
      }
    });
  },
};
