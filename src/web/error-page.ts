// A fault as an HTML page (views/error.eta): its title in the reader's language, and the message when
// it is the reader's to fix. The pages' error handler (plugin.ts) and the dashboard's use it.
import type { FastifyReply } from 'fastify';
import { negotiateLanguage } from './i18n.ts';

const ERROR_TITLES: Record<string, Record<number | 'other', string>> = {
  en: { 400: 'This request is not valid', 403: 'You may not do this', 404: 'This page does not exist', 503: 'Please try again in a moment', other: 'Something went wrong' },
  de: { 400: 'Diese Anfrage ist ungültig', 403: 'Das dürfen Sie nicht', 404: 'Diese Seite gibt es nicht', 503: 'Bitte versuchen Sie es gleich noch einmal', other: 'Etwas ist schiefgegangen' },
};

/** The data of views/error.eta for a fault: its title in the reader's language, and the message when it is the reader's to fix. */
export function errorPageData(status: number, message: string | null, acceptLanguage: string | undefined): { lang: string; title: string; message: string | null; status: number } {
  const lang = negotiateLanguage(acceptLanguage, Object.keys(ERROR_TITLES));
  const titles = ERROR_TITLES[lang] ?? ERROR_TITLES.en!;
  return { lang, title: titles[status] ?? titles.other, message, status };
}

/** A fault as a page (see errorPageData). */
export function renderError(reply: FastifyReply, status: number, message: string | null, acceptLanguage: string | undefined): FastifyReply {
  return reply.status(status).view('error.eta', errorPageData(status, message, acceptLanguage));
}
