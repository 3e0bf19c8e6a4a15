// The pages guests see (shared/spec/surveys.md): the survey of an invitation (/s/<token>), the public
// QR-code survey (/s/public/<survey id>?node=…), and unsubscribe (/u/<token>). Plain HTML forms:
// they work without JavaScript and on a phone; a fault re-shows the form with the message beside
// the question. An unknown token is a 404 page (guestLinkFault, through the pages' error handler).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { clientAddress } from '../../http/client-address.ts';
import { countHit } from '../../http/rate-limit.ts';
import { fieldOf, type ParsedForm, parseForm } from '../../modules/surveys/answers.ts';
import { textIn } from '../../modules/surveys/definition.ts';
import { publicSurveyPath } from '../../modules/surveys/public-link.ts';
import {
  checkUnsubscribeLink, openInvitation, openPublic, type PageOutcome, type SurveyView, submitInvitation, submitPublic, unsubscribeByToken,
} from '../../modules/invitations/respond.ts';
import { negotiateLanguage, translator, wordsLanguage } from '../i18n.ts';
import { FORGET_POST_JS } from '../locations.ts';
import { surveyCatalogs } from './catalog.ts';

const SURVEY_CSS = '/assets/survey.css';
/** A page answering the guest's POST is reloaded (or gone back to) as a GET, never a resubmission prompt. */
const scriptsFor = (request: FastifyRequest): string[] => (request.method === 'POST' ? [FORGET_POST_JS] : []);
/**
 * Answers to a public (QR-code) survey one client address may send per window. Generous, since a
 * hotel's guests often share one address (its Wi-Fi); it only stops a script from filling the survey.
 */
const PUBLIC_ANSWERS_MAX = 60;
const PUBLIC_ANSWERS_WINDOW_S = 600;
// A token of any length reaches the service, which answers anything not shaped like one as a link that is not valid.
const TokenParams = Type.Object({ token: Type.String() });
const SurveyParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const NodeQuery = Type.Object({ node: Type.Optional(Type.String({ maxLength: 100 })) });

/** The page's language: the invitation's when the survey has it, else the reader's browser's among the survey's, else its primary. */
function pageLanguage(request: FastifyRequest, survey: SurveyView, invitationLanguage: string | null): string {
  if (invitationLanguage && survey.languages.includes(invitationLanguage)) return invitationLanguage;
  return negotiateLanguage(request.headers['accept-language'], survey.languages, survey.primaryLanguage);
}

/** `lang`: set when the label is in another language than the page's (Yes and No in English on a Dutch page). */
interface Choice { value: string; label: string; checked: boolean; lang: string | null }
interface QuestionView {
  id: string;
  field: string;
  type: string;
  text: string;
  required: boolean;
  multiple: boolean;
  choices: Choice[];
  textValue: string;
  fault: string | null;
  /** The first question with a fault: its field takes the focus, so the keyboard starts there. */
  focus: boolean;
}

function questionViews(survey: SurveyView, language: string, uiLang: string | null, form: ParsedForm | null, t: ReturnType<typeof translator<string>>) {
  const at = (texts: Readonly<Record<string, string>>) => textIn(texts, language, survey.primaryLanguage);
  const firstFault = survey.definition.pages.flatMap((page) => page.questions).find((q) => form?.faults.has(q.id))?.id;
  return survey.definition.pages.map((page) => ({
    id: page.id,
    title: Object.keys(page.title).length > 0 ? at(page.title) : null,
    questions: page.questions.map((q): QuestionView => {
      const entered = new Set(form?.entered.get(q.id) ?? []);
      const choice = (value: string, label: string, lang: string | null = null): Choice => ({ value, label, checked: entered.has(value), lang });
      let choices: Choice[] = [];
      if (q.type === 'nps') choices = Array.from({ length: 11 }, (_, n) => choice(String(n), String(n)));
      else if (q.type === 'rating') choices = Array.from({ length: q.scale }, (_, n) => choice(String(n + 1), String(n + 1)));
      else if (q.type === 'yes_no') choices = [choice('yes', t('yes'), uiLang), choice('no', t('no'), uiLang)];
      else if (q.type === 'choice') choices = q.options.map((o) => choice(o.id, at(o.text)));
      const fault = form?.faults.get(q.id);
      return {
        id: q.id, field: fieldOf(q.id), type: q.type, text: at(q.text), required: q.required,
        multiple: q.type === 'choice' && q.multiple, choices, textValue: q.type === 'text' ? [...entered][0] ?? '' : '',
        fault: fault ? t(`fault.${fault}`) : null, focus: q.id === firstFault,
      };
    }),
  }));
}

/**
 * The survey's form, or its thank-you page. `busyS`: the answers were held back by the QR survey's
 * limit for that many seconds; the form is shown again with them (429) and says when to send again.
 */
function renderOutcome(request: FastifyRequest, reply: FastifyReply, outcome: PageOutcome, action: string, busyS: number | null = null) {
  const lang = pageLanguage(request, outcome.survey, outcome.language);
  const t = translator(surveyCatalogs, lang) as ReturnType<typeof translator<string>>;
  // The page's own words (Submit, Yes, the faults) exist in five languages: on a survey written in
  // another, they are English, and marked so (a screen reader reads them in English, not as Dutch).
  const words = wordsLanguage(surveyCatalogs, lang);
  const uiLang = words === lang ? null : words;
  if (outcome.kind === 'thanks') {
    return reply.view('survey/message.eta', { lang: words, title: t('thanks.title'), text: t('thanks.body'), styles: [SURVEY_CSS], scripts: scriptsFor(request) });
  }
  const faulty = outcome.form !== null && outcome.form.faults.size > 0;
  return reply.status(busyS !== null ? 429 : faulty ? 400 : 200).view('survey/form.eta', {
    // The survey's name is written once, presumably in its primary language: marked so, on a page in another.
    lang, title: outcome.survey.name, titleLang: outcome.survey.primaryLanguage === lang ? null : outcome.survey.primaryLanguage, place: outcome.survey.place, styles: [SURVEY_CSS], scripts: scriptsFor(request), action, t, faulty,
    busy: busyS === null ? null : t('busy', { minutes: String(Math.ceil(busyS / 60)) }), pages: questionViews(outcome.survey, lang, uiLang, outcome.form, t),
    // The attribute for the page's own words, empty when they are in the page's language ('en' is a constant: safe unescaped).
    uiLangAttr: uiLang === null ? '' : ` lang="${uiLang}"`,
  });
}

/** A form body's fields (q.<id>, repeated for a multiple choice); anything else reads as no answers. */
const bodyOf = (request: FastifyRequest): Record<string, unknown> =>
  (typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) ? request.body : {}) as Record<string, unknown>;


/** The language of a page about no survey in particular: the reader's browser's among the five the guest pages are written in. */
const readerLanguage = (request: FastifyRequest): string => negotiateLanguage(request.headers['accept-language'], Object.keys(surveyCatalogs));

/** A guest's link: the survey and unsubscribe pages' addresses (/s/…, /u/…). */
export const isGuestLink = (path: string): boolean => /^\/[su](?:\/|$)/.test(path);

/**
 * The page a guest sees for a link that leads nowhere (unknown, altered, cut short, malformed): a
 * 404 saying so in the reader's language among the surveys' five, whatever failed underneath.
 */
export function guestLinkFault(request: FastifyRequest): { template: string; data: object } {
  const lang = readerLanguage(request);
  const t = translator(surveyCatalogs, lang);
  // A QR code's link came from a printed code, not an e-mail.
  const text = t(request.url.startsWith('/s/public/') ? 'invalid.qrBody' : 'invalid.body');
  return { template: 'survey/message.eta', data: { lang, styles: [SURVEY_CSS], scripts: [], title: t('invalid.title'), text } };
}

export function surveyPages(web: FastifyInstance, ctx: AppContext): void {
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  web.get<{ Params: { token: string } }>('/s/:token', { schema: { params: TokenParams, hide: true } }, async (request, reply) =>
    renderOutcome(request, noStore(reply), await openInvitation(ctx.db, request.params.token), `/s/${encodeURIComponent(request.params.token)}`));

  web.post<{ Params: { token: string } }>('/s/:token', { schema: { params: TokenParams, hide: true } }, async (request, reply) =>
    renderOutcome(request, noStore(reply), await submitInvitation(ctx.db, request.params.token, bodyOf(request)), `/s/${encodeURIComponent(request.params.token)}`));

  web.get<{ Params: { id: string }; Querystring: { node?: string } }>('/s/public/:id', { schema: { params: SurveyParams, querystring: NodeQuery, hide: true } }, async (request, reply) => {
    const survey = await openPublic(ctx.db, request.params.id, request.query.node);
    return renderOutcome(request, noStore(reply), { kind: 'form', survey, language: null, form: null }, publicSurveyPath(request.params.id, request.query.node));
  });

  web.post<{ Params: { id: string }; Querystring: { node?: string } }>('/s/public/:id', { schema: { params: SurveyParams, querystring: NodeQuery, hide: true } }, async (request, reply) => {
    const action = publicSurveyPath(request.params.id, request.query.node);
    // Looked up first: a made-up survey or hotel is a 404 that leaves nothing in the limit's store.
    const survey = await openPublic(ctx.db, request.params.id, request.query.node);
    const hit = await countHit(ctx.rateLimits, `survey-public:${request.params.id}:${clientAddress(request.ip)}`, PUBLIC_ANSWERS_MAX, PUBLIC_ANSWERS_WINDOW_S);
    reply.headers(hit.headers);
    if (hit.over) {
      // Held back, not lost: the guest's answers are shown again with when to send them.
      reply.header('retry-after', String(hit.resetS));
      const entered = parseForm(survey.definition, bodyOf(request)).entered;
      return renderOutcome(request, noStore(reply), { kind: 'form', survey, language: null, form: { answers: [], faults: new Map(), entered } }, action, hit.resetS);
    }
    return renderOutcome(request, noStore(reply), await submitPublic(ctx.db, request.params.id, request.query.node, bodyOf(request)), action);
  });

  /** The unsubscribe page or its confirmation, naming the hotel whose e-mails the guest leaves. */
  const unsubscribePage = (request: FastifyRequest, reply: FastifyReply, link: { language: string | null; place: string | null }, done: boolean) => {
    const { language, place } = link;
    const lang = language && language in surveyCatalogs ? language : readerLanguage(request);
    const t = translator(surveyCatalogs, lang);
    return noStore(reply).view(done ? 'survey/message.eta' : 'survey/unsubscribe.eta', {
      lang, styles: [SURVEY_CSS], scripts: scriptsFor(request), place, title: t(done ? 'unsubscribed.title' : 'unsubscribe.title'), text: t(done ? 'unsubscribed.body' : 'unsubscribe.body'),
      button: t('unsubscribe.button'), action: `/u/${encodeURIComponent((request.params as { token: string }).token)}`,
    });
  };

  web.get<{ Params: { token: string } }>('/u/:token', { schema: { params: TokenParams, hide: true } }, async (request, reply) => {
    const link = await checkUnsubscribeLink(ctx.db, request.params.token);
    return unsubscribePage(request, reply, link, link.unsubscribed);
  });

  // The page's button and a mail provider's one-click POST alike. RFC 8058 has providers send
  // List-Unsubscribe=One-Click as multipart/form-data (some send it URL-encoded, some nothing): the
  // POST itself is the request, so a multipart body is read (within the body limit) and set aside.
  web.register(async (oneClick) => {
    oneClick.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_request, _body, done) => done(null, {}));
    oneClick.post<{ Params: { token: string } }>('/u/:token', { schema: { params: TokenParams, hide: true } }, async (request, reply) =>
      unsubscribePage(request, reply, await unsubscribeByToken(ctx.db, request.params.token), true));
  });
}
