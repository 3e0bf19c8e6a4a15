// A fault as an HTML page (views/error.eta): its title in the reader's language, the message when
// it is the reader's to fix, and a way back to the dashboard (not on a guest's survey pages, whose
// readers have no dashboard). The pages' error handler (plugin.ts) and the dashboard's use it.
import type { FastifyReply } from 'fastify';
import { negotiateLanguage } from './i18n.ts';

const ERROR_TITLES: Record<string, Record<number | 'other' | 'home' | 'noPage', string>> = {
  en: {
    400: 'This request is not valid', 403: 'You may not do this', 404: 'This page does not exist', 503: 'Please try again in a moment', other: 'Something went wrong', home: 'Go to the dashboard',
    noPage: 'Check the address: a letter may be wrong, or the link may be old.',
  },
  de: {
    400: 'Diese Anfrage ist ungültig', 403: 'Das dürfen Sie nicht', 404: 'Diese Seite gibt es nicht', 503: 'Bitte versuchen Sie es gleich noch einmal', other: 'Etwas ist schiefgegangen', home: 'Zum Dashboard',
    noPage: 'Prüfen Sie die Adresse: Vielleicht ist ein Buchstabe falsch oder der Link veraltet.',
  },
};

export interface ErrorPage { lang: string; title: string; message: string | null; status: number; home: string | null }

/**
 * The data of views/error.eta for a fault: its title in the reader's language, the message when it
 * is the reader's to fix (a 404 without one: an address no page has, which says to check it), and
 * the text of the link to the dashboard's start page (which signs in first when needed) unless the
 * page is a guest's (`forGuest`).
 */
export function errorPageData(status: number, message: string | null, acceptLanguage: string | undefined, forGuest: boolean): ErrorPage {
  const lang = negotiateLanguage(acceptLanguage, Object.keys(ERROR_TITLES));
  const titles = ERROR_TITLES[lang] ?? ERROR_TITLES.en!;
  return { lang, title: titles[status] ?? titles.other, message: message ?? (status === 404 ? titles.noPage : null), status, home: forGuest ? null : titles.home };
}

/** A fault as a page (see errorPageData). */
export function renderError(reply: FastifyReply, status: number, message: string | null, acceptLanguage: string | undefined, forGuest: boolean): FastifyReply {
  return reply.status(status).view('error.eta', errorPageData(status, message, acceptLanguage, forGuest));
}
