// Sign-in and sign-out: GET /login (fields Email and Password, button Sign in), POST /login (one
// message for a wrong e-mail or password, whichever it was; a locked e-mail or address waits out
// its window), POST /logout (the session ends in the database, the cookie is cleared).
import type { AppContext } from '../../context.ts';
import { clientAddress } from '../../http/client-address.ts';
import { endSession, openSession } from '../../modules/users/sessions.ts';
import { LoginThrottle, signIn } from '../../modules/users/sign-in.ts';
import { field } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { showLogin } from './login-form.ts';
import { pageTranslator } from './render.ts';
import { languageOf, safeNext, SESSION_COOKIE } from './session.ts';

export const loginPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    const throttle = new LoginThrottle(ctx.rateLimits, ctx.config);
    const https = ctx.config.publicUrl.startsWith('https:');

    web.get('/login', async (request, reply) => {
      const next = safeNext((request.query as { next?: unknown }).next);
      if (request.signedIn !== null) return reply.redirect(next, 303);
      const query = request.query as { signed_out?: unknown; expired?: unknown; reset?: unknown };
      const t = pageTranslator(languageOf(request));
      const notice = query.signed_out === '1' ? t('login.signedOut') : query.expired === '1' ? t('login.expired') : query.reset === '1' ? t('login.reset') : null;
      return showLogin(request, reply, { email: '', next, fault: null, notice });
    });

    web.post('/login', async (request, reply) => {
      const email = field(request, 'email');
      const next = safeNext(field(request, 'next'));
      const result = await signIn(ctx.db, throttle, email, field(request, 'password'), clientAddress(request.ip));
      if (!result.ok) {
        const t = pageTranslator(languageOf(request));
        const fault = result.reason === 'locked' ? t('login.locked', { minutes: Math.ceil(result.retryS / 60) }) : t('login.wrong');
        if (result.reason === 'locked') reply.header('Retry-After', String(result.retryS));
        return showLogin(request, reply.status(result.reason === 'locked' ? 429 : 401), { email, next, fault, notice: null });
      }
      // A fresh id on every sign-in; a session this browser had before ends.
      const previous = request.cookies[SESSION_COOKIE];
      if (previous) await endSession(ctx.db, previous);
      ctx.sessions.clear();
      const session = await openSession(ctx.db, ctx.config, result.userId);
      reply.setCookie(SESSION_COOKIE, session.id, { path: '/', httpOnly: true, sameSite: 'lax', secure: https, maxAge: session.maxAgeS });
      return reply.redirect(next, 303);
    });

    web.post('/logout', async (request, reply) => {
      const id = request.cookies[SESSION_COOKIE];
      if (id) await endSession(ctx.db, id);
      // Refused at once on this instance; other instances hear it from the database (session-changes.ts).
      ctx.sessions.clear();
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: https });
      return reply.redirect('/login?signed_out=1', 303);
    });
  },
};
