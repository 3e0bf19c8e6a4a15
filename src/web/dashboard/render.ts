// Renders a dashboard page inside the frame (views/dashboard/frame.eta): the navigation for the
// user's role, the user's e-mail, the Sign out form, a CSRF token for the page's forms, and a
// translator over the frame's catalog plus the page's own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Catalog, type DatePrecision, formatDate, formatNumber, translator } from '../i18n.ts';
import { FORGET_POST_JS } from '../locations.ts';
import type { Feature } from '../../access/scopes.ts';
import { roleAtLeast } from '../../modules/users/service.ts';
import type { Role } from '../../modules/users/schemas.ts';
import { commonCatalog } from './catalog.ts';
import { languageOf } from './session.ts';
import { platformName } from './platform-names.ts';
import { reasonWords } from './reason-words.ts';

/** The dashboard's stylesheet (src/web/assets/dashboard.css), on every dashboard page. */
export const DASHBOARD_CSS = '/assets/dashboard.css';

/** A navigation entry a page declares (src/web/dashboard/pages.ts collects them). */
export interface NavEntry {
  href: string;
  /** A key of the frame's catalog (nav.*). */
  label: keyof typeof commonCatalog.en;
  /** The least role that sees the link (and may open the page). */
  least: Role;
  /** Pages under this prefix mark the entry as the current one (default: href). */
  section?: string;
  /** The plan feature the page belongs to: without it in the account's plan, no link. */
  feature?: Feature;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard's navigation (set by the dashboard plugin). */
    dashboardNav: readonly NavEntry[];
  }
}

/** A page's own catalogs: English complete, German may leave keys out. */
export type PageCatalogs<K extends string> = { en: Catalog<K> } & Readonly<Record<string, Partial<Catalog<K>>>>;

type MergedCatalogs = { en: Catalog<string> } & Readonly<Record<string, Partial<Catalog<string>>>>;
/** The frame's catalog merged with each page's, once per page (catalogs are constants; merging them per request showed in profiles). */
const mergedCatalogs = new WeakMap<object, MergedCatalogs>();
const FRAME_ONLY = {};

/** A translator over the frame's catalog and, when given, the page's. */
export function pageTranslator<K extends string>(language: string, catalogs?: PageCatalogs<K>) {
  const key = catalogs ?? FRAME_ONLY;
  let merged = mergedCatalogs.get(key);
  if (merged === undefined) {
    merged = { en: { ...commonCatalog.en, ...catalogs?.en }, de: { ...commonCatalog.de, ...catalogs?.de } } as MergedCatalogs;
    mergedCatalogs.set(key, merged);
  }
  return translator(merged as { en: Catalog<K | keyof typeof commonCatalog.en> }, language);
}

export interface PageData {
  /** The page's <h1> and <title> (already translated). */
  title: string;
  /** For a page answering a POST whose address has no page of its own: where it lives as a GET. */
  pageUrl?: string;
  [key: string]: unknown;
}

/**
 * Renders `template` (a path under src/web/views/, e.g. 'dashboard/settings-api.eta') for the
 * signed-in user. The template nests the frame with `<% layout('dashboard/frame', it) %>` and gets
 * `it.t` (translate), `it.num` (a figure in the page's language), `it.date` (an instant as the language writes it, to the day, minute or second; `marked` false leaves out "UTC" where a table says it once), `it.platform` (a review platform by its name), `it.reason` (why an invitation or a delivery failed, in the page's language), `it.csrf`, `it.user`, `it.lang` and the page's data.
 */
export function renderPage<K extends string>(request: FastifyRequest, reply: FastifyReply, template: string, data: PageData, catalogs?: PageCatalogs<K>) {
  const lang = languageOf(request);
  const t = pageTranslator(lang, catalogs);
  const user = request.signedIn;
  const path = request.url.split('?')[0] ?? '/';
  const nav = user === null ? [] : request.dashboardNav
    .filter((entry) => roleAtLeast(user.role, entry.least) && (entry.feature === undefined || user.principal.features.has(entry.feature))).map((entry) => {
    const section = entry.section ?? entry.href;
    const current = section === '/' ? path === '/' : path === section || path.startsWith(`${section}/`);
    return { href: entry.href, label: t(entry.label), current };
  });
  return reply.header('Cache-Control', 'no-store').view(template, {
    ...data, styles: [DASHBOARD_CSS, ...((data.styles as string[] | undefined) ?? [])], lang, t, nav, csrf: reply.pageCsrfToken(), path,
    num: (value: number) => formatNumber(value, lang),
    date: (iso: string, precision?: DatePrecision, marked?: boolean) => formatDate(iso, lang, precision, marked),
    platform: platformName,
    reason: (stored: string) => reasonWords(stored, lang),
    scripts: [...((data.scripts as string[] | undefined) ?? []), ...(request.method === 'POST' ? [FORGET_POST_JS] : [])],
    // Where a page that answers a POST lives as a GET (forget-post.js makes it the history entry):
    // the page's own address unless the form's address has no page (POST /surveys/{id}/rules).
    pageUrl: request.method === 'POST' ? (data.pageUrl ?? request.url) : null,
    // webhooks: whether Settings → Webhooks is the user's (owners of the whole account).
    user: user === null ? null : { email: user.email, role: user.role, webhooks: user.principal.scopes.includes('webhooks:manage') },
  });
}
