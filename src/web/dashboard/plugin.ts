// The dashboard's own context inside the pages' (src/web/plugin.ts): cookies, the session of every
// request, CSRF tokens bound to that session (checked on every state-changing request: a hidden
// _csrf field in each form, or an X-CSRF-Token header from scripts; without one → 403), faults
// shown inside the frame when signed in, and every dashboard page (src/web/dashboard/pages.ts).
import { hkdfSync } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import type { AppContext } from '../../context.ts';
import { httpErrorOf } from '../../http/errors.ts';
import type { Principal } from '../../access/principal.ts';
import type { DomainError } from '../../lib/errors.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import { sessionOf } from '../../modules/users/sessions.ts';
import { renderError } from '../error-page.ts';
import type { NavEntry } from './render.ts';
import { showLogin } from './login-form.ts';
import { pageTranslator, renderPage } from './render.ts';
import { csrfBinding, formPage, languageOf, SESSION_COOKIE } from './session.ts';

/** A dashboard page: its routes, and the navigation entries it adds to the frame. */
export interface DashboardPage {
  nav?: readonly NavEntry[];
  routes: (web: FastifyInstance, ctx: AppContext) => void | Promise<void>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The cookie holding the browser's CSRF secret (tokens are HMACs of it). */
const CSRF_COOKIE = 'repute_csrf';

declare module 'fastify' {
  interface FastifyReply {
    /** A CSRF token for this page's forms, bound to the session (the signed-out forms get one of their own). */
    pageCsrfToken(): string;
  }
}

export function dashboardRoutes(pages: readonly DashboardPage[]): (web: FastifyInstance, ctx: AppContext) => Promise<void> {
  const nav = pages.flatMap((page) => page.nav ?? []);
  return async (web, ctx) => {
    await web.register(async (dash) => {
      const https = ctx.config.publicUrl.startsWith('https:');
      await dash.register(cookie);
      await dash.register(csrf, {
        sessionPlugin: '@fastify/cookie',
        // The secret's cookie; tokens are HMACs of it bound to the session (userInfo), so a token
        // of one session (or of the signed-out login form) is refused in another.
        cookieKey: CSRF_COOKIE,
        cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: https },
        csrfOpts: { hmacKey: Buffer.from(hkdfSync('sha256', ctx.config.secretKey, 'repute', 'dashboard csrf', 32)) },
        getUserInfo: csrfBinding,
      });
      // Tokens made per (CSRF secret cookie, session), kept 10 minutes: any token of the pair is as
      // valid as another, and making one (a random salt and an HMAC) cost ~20 µs of every page.
      const tokens = new TtlCache<string>(600_000, 10_000);
      dash.decorateReply('pageCsrfToken', function (this: FastifyReply): string {
        const binding = csrfBinding(this.request);
        const secret = this.request.cookies[CSRF_COOKIE];
        const key = secret === undefined ? null : `${secret}\n${binding}`;
        let token = key === null ? undefined : tokens.get(key);
        if (token === undefined) {
          // Without a secret cookie yet, this makes one and sets the cookie.
          token = this.generateCsrf({ userInfo: binding } as Parameters<FastifyReply['generateCsrf']>[0]);
          if (key !== null) tokens.set(key, token);
        }
        return token;
      });
      // A signed-in user's reach (subtree), kept 2 s like a key's principal; the session itself until the database signals a change.
      const memory = { sessions: ctx.sessions, reach: new TtlCache<Principal>(2000, 10_000) };
      dash.decorateRequest('signedIn', null);
      dash.decorateRequest('dashboardNav', null as unknown as readonly NavEntry[]);
      dash.addHook('onRequest', async (request) => {
        request.dashboardNav = nav;
        const id = request.cookies[SESSION_COOKIE];
        request.signedIn = id ? await sessionOf(ctx.db, ctx.config, id, memory) : null;
      });
      dash.addHook('preHandler', (request, reply, done) => {
        if (UNSAFE.has(request.method)) return dash.csrfProtection(request, reply, done);
        done();
      });
      dash.setErrorHandler((thrown: FastifyError | DomainError, request, reply) => {
        const t = pageTranslator(languageOf(request));
        // A form sent signed out without a valid token: one of a session that has ended (signed out
        // in another tab, expired, the browser restarted), or none at all. It answers 403 (the
        // contract), with the sign-in form and why: the way on is to sign in again.
        if (csrfFault(thrown) && request.signedIn === null) {
          // Signed in again, the user is back on the page the form was on (an inbox reply's text waits there: keep-drafts.js).
          return showLogin(request, reply.status(403), { email: '', next: formPage(request), fault: null, notice: t('login.expired') });
        }
        const error = httpErrorOf(thrown, request);
        reply.status(error.status).headers(error.headers);
        // A 404's own message is the service's ("webhook endpoint not found"): said in the reader's words instead.
        const message = error.status >= 500 ? null : csrfFault(thrown) ? t('error.csrf') : error.status === 404 ? t('error.404why') : error.message;
        if (request.signedIn === null) return renderError(reply, error.status, message, request.headers['accept-language'], false);
        const title = [400, 403, 404].includes(error.status) ? t(`error.${error.status}` as 'error.400') : t('error.other');
        return renderPage(request, reply, 'dashboard/error.eta', { title, status: error.status, message });
      });
      for (const page of pages) await page.routes(dash, ctx);
    });
  };
}

const csrfFault = (error: unknown): boolean => /^FST_CSRF_/.test(String((error as { code?: unknown }).code ?? ''));
