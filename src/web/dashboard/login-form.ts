// The sign-in form (views/dashboard/login.eta) as a page: shown by GET /login, again after a refused
// try, and in place of a form sent after its session ended (the dashboard's CSRF fault).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_CSS, pageTranslator } from './render.ts';
import { languageOf } from './session.ts';

export interface LoginForm {
  email: string;
  /** Where to go once signed in (a dashboard path). */
  next: string;
  fault: string | null;
  notice: string | null;
}

export function showLogin(request: FastifyRequest, reply: FastifyReply, form: LoginForm) {
  const lang = languageOf(request);
  const t = pageTranslator(lang);
  return reply.header('Cache-Control', 'no-store').view('dashboard/login.eta', { styles: [DASHBOARD_CSS], lang, t, title: t('login.title'), csrf: reply.pageCsrfToken(), ...form });
}
