// /reviews: the review inbox. Newest first with the public API's own listing (its keyset pages and
// filters, its cursors bound to the filters), each review an article with its reply; managers and
// owners answer or edit the reply (review.replied is emitted, as through the API) and hide or
// unhide. Forms post and come back to the same filtered page (303), so no script is needed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { KEEP_DRAFTS_JS } from '../locations.ts';
import { cursorsFor, filterBinding } from '../../http/pagination.ts';
import { ENGINE_LANGUAGES } from '../../extraction/types.ts';
import { DomainError, FieldsInvalid, invalid } from '../../lib/errors.ts';
import { listVisibleProperties, NOT_WITHIN_REACH, type PropertyName } from '../../modules/nodes/service.ts';
import { ReviewListQuery, ReplyInput } from '../../modules/reviews/schemas.ts';
import { getReview, listReviews, replyToReview, setHidden } from '../../modules/reviews/service.ts';
import { roleAtLeast } from '../../modules/users/service.ts';
import { checkBody, field, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { reviewsCatalog } from './reviews-catalog.ts';
import { languageOf, requireUser, scopeOf, userOf } from './session.ts';

const PAGE_SIZE = 25;
const PLATFORMS = ['google', 'booking', 'tripadvisor', 'expedia', 'holidaycheck', 'trustyou'];
/** The inbox's cursors are its own list: a cursor of the public API's list does not open it. */
const BINDING = 'dashboard /reviews';

/** The filter form's fields as the page shows them back (strings, '' for "any"). */
interface FilterForm { node_id: string; platform: string; rating_min: string; rating_max: string; language: string; replied: string; from: string; to: string }

/** A refused reply: the message beside its review's field, and what was typed in every field of the page, shown again. */
interface ReplyFault {
  reviewId: string;
  message: string;
  drafts: ReadonlyMap<string, string>;
}

/** What the page's fields held when a reply was sent or a review hidden, and where the focus goes: the confirmation, or a review. */
interface KeptDrafts { drafts: ReadonlyMap<string, string>; focus: 'sent' | string }

/** The non-empty fields of the page as sent, but the one of the review just answered (`sent`), which now shows its reply. */
const typedDrafts = (request: FastifyRequest, sent: string | null): Map<string, string> =>
  new Map([...draftsOf(request)].filter(([id, text]) => id !== sent && text.trim() !== ''));

/** The text of each review's field as sent (the inbox's form sends reply-{id} for every review of the page). */
function draftsOf(request: FastifyRequest): Map<string, string> {
  const body = request.body;
  const drafts = new Map<string, string>();
  if (typeof body !== 'object' || body === null) return drafts;
  for (const name of Object.keys(body)) {
    if (name.startsWith('reply-')) drafts.set(name.slice('reply-'.length), field(request, name));
  }
  const single = field(request, 'reply');
  const id = (request.params as { id?: string }).id;
  if (single !== '' && id !== undefined && !drafts.has(id)) drafts.set(id, single);
  return drafts;
}

/** The filters with a place for their fault beside them (the others are lists of fixed choices: above the form). */
const FAULT_SPOTS = ['node_id', 'rating_min', 'rating_max', 'language', 'from', 'to'];

/**
 * Suggestions under the language filter, named in the page's language ("de" · "German" / "Deutsch"):
 * the languages topics are extracted in. Any other code a review carries can still be typed.
 */
const languageLists = new Map<string, Array<{ code: string; name: string }>>();
function languageChoices(pageLanguage: string): Array<{ code: string; name: string }> {
  let list = languageLists.get(pageLanguage);
  if (list === undefined) {
    const names = new Intl.DisplayNames([pageLanguage], { type: 'language' });
    list = ENGINE_LANGUAGES.map((code) => ({ code, name: names.of(code) ?? code }));
    languageLists.set(pageLanguage, list);
  }
  return list;
}

/**
 * The language filter as typed, read as a code: an engine language by its name in the page's language,
 * in English or in any of the five ("Deutsch" on an English page, "Englisch", "german") or by its code
 * in any case ("DE"); anything else as typed.
 */
function languageCode(typed: string, pageLanguage: string): string {
  const wanted = typed.toLowerCase();
  for (const namedIn of [pageLanguage, 'en', ...ENGINE_LANGUAGES]) {
    const known = languageChoices(namedIn).find((l) => l.code === wanted || l.name.toLowerCase() === wanted);
    if (known !== undefined) return known.code;
  }
  return typed;
}

/** A review's language by its name in the page's language ("Deutsch"); a code Intl does not know as stored. */
const languageNamers = new Map<string, Intl.DisplayNames>();
function languageName(code: string, pageLanguage: string): string {
  let namer = languageNamers.get(pageLanguage);
  if (namer === undefined) {
    namer = new Intl.DisplayNames([pageLanguage], { type: 'language', fallback: 'code' });
    languageNamers.set(pageLanguage, namer);
  }
  try {
    return namer.of(code) ?? code;
  } catch {
    return code; // not shaped like a language code (the API takes any text up to 35 characters)
  }
}

const FILTER_FIELDS: ReadonlyArray<keyof FilterForm> = ['node_id', 'platform', 'rating_min', 'rating_max', 'language', 'replied', 'from', 'to'];

function filterForm(query: Record<string, unknown>): FilterForm {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  return Object.fromEntries(FILTER_FIELDS.map((name) => [name, text(name)])) as unknown as FilterForm;
}

/** The instant a day of the form starts (UTC), or null when the text is not a day of the calendar (2026-02-30). */
function dayStart(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const start = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== value ? null : start;
}

/** The list query of the filter form; a date range is whole days (UTC), `to` included. Every fault is reported at once. */
function listQuery(form: FilterForm, pageLanguage: string): ReviewListQuery {
  const faults: Array<{ field: string; message: string }> = [];
  const day = (name: 'from' | 'to', next: boolean): string | undefined => {
    if (!form[name]) return undefined;
    const start = dayStart(form[name]);
    if (start === null) faults.push({ field: name, message: `${name} must be a date (YYYY-MM-DD)` });
    return start === null ? undefined : new Date(start + (next ? 86_400_000 : 0)).toISOString();
  };
  const query: Record<string, unknown> = {};
  if (form.node_id) query.node_id = form.node_id;
  if (form.platform) query.platform = [form.platform];
  if (form.rating_min) query.rating_min = Number(form.rating_min);
  if (form.rating_max) query.rating_max = Number(form.rating_max);
  if (form.language) query.language = languageCode(form.language, pageLanguage);
  if (form.replied === 'yes' || form.replied === 'no') query.replied = form.replied === 'yes';
  const from = day('from', false);
  const to = day('to', true);
  if (from !== undefined) query.from = from;
  if (to !== undefined) query.to = to;
  try {
    const checked = checkBody<ReviewListQuery>(ReviewListQuery, query);
    if (faults.length === 0) return checked;
  } catch (error) {
    if (!(error instanceof FieldsInvalid)) throw error;
    faults.push(...error.faults);
  }
  throw new FieldsInvalid(faults);
}

/** The inbox URL of a filter form (what a reply form returns to). */
function inboxUrl(form: FilterForm): string {
  const params = new URLSearchParams();
  for (const name of FILTER_FIELDS) if (form[name] !== '') params.set(name, form[name]);
  const query = params.toString();
  return query === '' ? '/reviews' : `/reviews?${query}`;
}

/** An inbox address with one more query parameter (`value` encoded). */
const withParam = (url: string, name: string, value: string): string => `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;

/**
 * Only an inbox address of this site (no open redirect through the hidden `back` field), in the
 * printable ASCII a Location header carries: the page writes it so (inboxUrl), and anything else
 * (a crafted "Ā" or control byte) would fail the redirect after the action was done.
 */
const backTo = (value: string): string => (/^\/reviews(\?[\x21-\x22\x24-\x7e]*)?$/.test(value) ? value : '/reviews');

export const reviewsPage: DashboardPage = {
  nav: [{ href: '/reviews', label: 'nav.reviews', least: 'viewer', feature: 'reviews' }],
  routes(web, ctx: AppContext) {
    const cursors = cursorsFor(ctx.config.secretKey);
    // A node's properties are kept 2 s (ctx.propertyNames), the same list each time: what the page
    // makes of them (their names by id, the filter's options with none selected) is made once per list.
    const madeOf = new WeakMap<readonly PropertyName[], { names: ReadonlyMap<string, string>; options: string }>();
    const made = (properties: readonly PropertyName[]) => {
      let m = madeOf.get(properties);
      if (m === undefined) {
        m = { names: new Map(properties.map((p) => [p.id, p.name])), options: web.view('dashboard/property-options.eta', { properties, selected: '' }) };
        madeOf.set(properties, m);
      }
      return m;
    };

    /**
     * The inbox. `fault`: a refused reply, shown beside its field with every field's text. `kept`: after
     * a reply was sent or a review hidden, what was typed into the page's fields, shown again (not lost),
     * with the focus on the confirmation (`sent`) or on the review hidden (its id).
     */
    const show = async (request: FastifyRequest, reply: FastifyReply, fault: ReplyFault | null = null, kept: KeptDrafts | null = null) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), reviewsCatalog);
      const raw = request.query as Record<string, unknown>;
      const form = filterForm(raw);
      const properties = await listVisibleProperties(ctx.db, principal, ctx.propertyNames);
      let page = null;
      let filterFault: FormFault | null = null;
      try {
        const query = listQuery(form, languageOf(request));
        const binding = `${BINDING}\n${filterBinding(query)}`;
        const cursor = typeof raw.cursor === 'string' ? raw.cursor : undefined;
        page = cursors.sealPage(binding, await listReviews(ctx.db, principal, cursors.open(binding, cursor), PAGE_SIZE, query));
      } catch (error) {
        // A property outside the user's reach (an edited address) is a fault of the filter, not a missing page.
        const outOfReach = error instanceof DomainError && error.kind === 'not-found' && form.node_id !== '';
        filterFault = formFault(outOfReach ? invalid(NOT_WITHIN_REACH) : error, FAULT_SPOTS, languageOf(request));
        reply.status(filterFault.status);
      }
      const { names, options } = made(properties);
      const here = inboxUrl(form);
      // Where the page's forms come back to: this very page, its cursor included (page 2 stays page 2).
      const cursor = typeof raw.cursor === 'string' && raw.cursor !== '' ? raw.cursor : null;
      const back = cursor === null ? here : withParam(here, 'cursor', cursor);
      // A page has a few distinct ratings: each label is made once.
      const ratingLabels = new Map<number | null, string>();
      const ratingLabel = (rating: number | null): string => {
        let label = ratingLabels.get(rating);
        if (label === undefined) {
          label = rating === null ? t('reviews.noRating') : t('reviews.rating', { rating });
          ratingLabels.set(rating, label);
        }
        return label;
      };
      const canAnswer = roleAtLeast(userOf(request).role, 'manager');
      return renderPage(request, reply, 'dashboard/reviews.eta', {
        title: t('reviews.title'), form, propertyOptions: form.node_id === '' ? options : web.view('dashboard/property-options.eta', { properties, selected: form.node_id }), platforms: PLATFORMS, page, names, back, ratingLabel,
        // After a reply (?sent=<review id>#sent): said inside the review when the page still shows it,
        // else at the top (a filter such as "not replied" now leaves it out); #sent lands on it either way.
        notice: typeof raw.sent === 'string' && raw.sent !== '' && fault === null ? t('reviews.sent') : null,
        sentId: typeof raw.sent === 'string' ? raw.sent : null,
        next: page?.next_cursor ? withParam(here, 'cursor', page.next_cursor) : null,
        // A later page leads back to the first, with the same filters.
        newest: cursor === null ? null : here,
        canAnswer,
        // Replies typed and not yet saved are kept in the browser per user (keep-drafts.js): another
        // user of the same browser gets none of them.
        draftsOf: userOf(request).userId, scripts: canAnswer ? [KEEP_DRAFTS_JS] : [],
        filterFault, replyFault: fault, languages: languageChoices(languageOf(request)),
        languageName: (code: string) => languageName(code, languageOf(request)),
        // The notice of a reply sent takes the focus, so a screen reader says it (#sent only scrolls to it).
        drafts: fault?.drafts ?? kept?.drafts ?? null, focusNotice: kept?.focus === 'sent' || (kept === null && typeof raw.sent === 'string' && raw.sent !== ''),
        focusReview: kept?.focus === 'sent' ? null : kept?.focus ?? null,
        // A page answering a POST is reloaded as this GET (forget-post.js): the fault's review, the reply sent, the review hidden.
        pageUrl: fault !== null ? `${back}#review-${fault.reviewId}`
          : kept === null ? undefined
          : kept.focus === 'sent' ? withParam(back, 'sent', String(raw.sent)) : `${back}#review-${kept.focus}`,
      }, reviewsCatalog);
    };

    web.get('/reviews', { preHandler: requireUser('viewer', 'reviews') }, (request, reply) => show(request, reply));

    web.post('/reviews/:id/reply', { preHandler: requireUser('manager', 'reviews') }, async (request, reply) => {
      const id = (request.params as { id: string }).id;
      await getReview(ctx.db, scopeOf(request), id); // 404 outside the user's reach
      const back = backTo(field(request, 'back'));
      try {
        // The inbox's form sends every review's field, reply-{id}; a form of one review may send `reply`.
        const text = field(request, `reply-${id}`) || field(request, 'reply');
        const input = checkBody<{ text: string }>(ReplyInput, { text: text.trim() });
        await replyToReview(ctx.db, id, input.text);
      } catch (error) {
        const fault = formFault(error, ['text'], languageOf(request));
        request.query = Object.fromEntries(new URLSearchParams(back.split('?')[1] ?? ''));
        return show(request, reply.status(fault.status), {
          reviewId: id, message: (fault.fields.get('text') ?? fault.general ?? '').replace(/^text\b/, 'reply'), drafts: draftsOf(request),
        });
      }
      const sentUrl = withParam(back, 'sent', id);
      // Text typed into other reviews' fields goes with the form: shown again rather than lost to a redirect.
      const drafts = typedDrafts(request, id);
      if (drafts.size === 0) return reply.redirect(`${sentUrl}#sent`, 303);
      request.query = Object.fromEntries(new URLSearchParams(sentUrl.split('?')[1] ?? ''));
      return show(request, reply, null, { drafts, focus: 'sent' });
    });

    web.post('/reviews/:id/hidden', { preHandler: requireUser('manager', 'reviews') }, async (request, reply) => {
      const id = (request.params as { id: string }).id;
      await getReview(ctx.db, scopeOf(request), id);
      await setHidden(ctx.db, id, field(request, 'hidden') === '1');
      const back = backTo(field(request, 'back'));
      // The Hide button sends the page's form too: what was typed is shown again rather than lost.
      const drafts = typedDrafts(request, null);
      if (drafts.size === 0) return reply.redirect(`${back}#review-${id}`, 303);
      request.query = Object.fromEntries(new URLSearchParams(back.split('?')[1] ?? ''));
      return show(request, reply, null, { drafts, focus: id });
    });
  },
};
