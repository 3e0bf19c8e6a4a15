// Who is signed in, for every dashboard route: the session cookie, the signed-in user on the
// request, requireUser(least) for a route, and scopeOf(request) for the Principal a page hands to
// the modules' services (the user's account and node subtree: what a key bound there reaches).
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Principal } from '../../access/principal.ts';
import type { Feature } from '../../access/scopes.ts';
import { AppError } from '../../http/errors.ts';
import type { SignedIn } from '../../modules/users/sessions.ts';
import type { Role } from '../../modules/users/schemas.ts';
import { roleAtLeast } from '../../modules/users/service.ts';
import { negotiateLanguage, translator } from '../i18n.ts';
import { commonCatalog, LANGUAGES } from './catalog.ts';

export const SESSION_COOKIE = 'repute_session';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard's signed-in user (null: no live session); set for every dashboard request. */
    signedIn: SignedIn | null;
  }
}

/** The signed-in user of a route guarded by requireUser (throws if used elsewhere: a programming error). */
export function userOf(request: FastifyRequest): SignedIn {
  if (request.signedIn === null) throw new Error('userOf: the route has no requireUser guard');
  return request.signedIn;
}

/** What the user reaches, as the services take it: their account and their node's subtree. */
export const scopeOf = (request: FastifyRequest): Principal => userOf(request).principal;

/** A path of this site only (no scheme, no host, no "//" or "/\" that a browser reads as another host). */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !/^\/(?![/\\])/.test(next) || next.includes('\\') || next.startsWith('/login')) return '/';
  // A control character (a tab or newline inside "/\t/evil.example") would be dropped by the browser.
  if ([...next].some((c) => c.charCodeAt(0) < 0x20)) return '/';
  // A Location header carries printable ASCII only: anything else (a space, DEL, "é") is sent
  // percent-encoded, as a browser writes it; a lone surrogate cannot be, and goes home.
  try {
    return next.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  } catch {
    return '/';
  }
}

/**
 * The page a form was sent from, to return to after signing in again (a session that ended between
 * the page and its form): the form's own `back` address when it has one (the inbox's, with its
 * filters), else the section its address belongs to (POST /reviews/{id}/reply → /reviews,
 * /settings/webhooks/{id} → /settings/webhooks). Referer is not sent (Referrer-Policy no-referrer).
 */
export function formPage(request: FastifyRequest): string {
  const body = request.body as Record<string, unknown> | undefined;
  if (typeof body?.back === 'string' && body.back !== '') return safeNext(body.back);
  const segments = (request.url.split('?')[0] ?? '/').split('/').filter(Boolean);
  return safeNext(`/${segments.slice(0, segments[0] === 'settings' ? 2 : 1).join('/')}`);
}

/**
 * preHandler of a dashboard route: without a session a GET goes to /login?next=<this page> (other
 * methods to /login), a role below `least` answers 403, and so does a page of a `feature` the
 * account's plan leaves out (the plan decides what exists at all, on the pages as in the API).
 */
export function requireUser(least: Role = 'viewer', feature: Feature | null = null): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.signedIn;
    if (user === null) {
      const target = request.method === 'GET' ? `/login?next=${encodeURIComponent(safeNext(request.url))}` : '/login';
      return reply.redirect(target, 303);
    }
    const outOfPlan = feature !== null && !user.principal.features.has(feature);
    if (!roleAtLeast(user.role, least) || outOfPlan) {
      const t = translator(commonCatalog, languageOf(request));
      throw new AppError(403, outOfPlan ? t('error.403plan', { feature: t(`feature.${feature}`) })
        : t('error.403role', { least: t(`role.${least}`), yours: t(`role.${user.role}`) }));
    }
  };
}

/** The page's language: the user's setting, else the browser's Accept-Language, else English. */
export function languageOf(request: FastifyRequest): string {
  return request.signedIn?.language ?? negotiateLanguage(request.headers['accept-language'], LANGUAGES);
}

/** What CSRF tokens are bound to: the session (a signed-out form, such as sign-in, gets one of its own). */
export const csrfBinding = (request: FastifyRequest): string => request.signedIn?.sessionHash ?? 'signed-out';
