// /surveys: the published surveys of the user's reach with their responses and NPS; ?survey=<id>
// shows that survey's latest responses with their answers (never a respondent's e-mail or token:
// the public API's response and answer objects carry neither).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../http/errors.ts';
import { cursorsFor } from '../../http/pagination.ts';
import { createRuleInReach, deleteRuleInReach, invitationOverview } from '../../modules/invitations/reach.ts';
import { CONSENT_MODES, RuleInput } from '../../modules/invitations/schemas.ts';
import { listVisibleNodes, listVisibleProperties } from '../../modules/nodes/service.ts';
import { publicLinkProperties, publicSurveyPath, qrCodeSvg } from '../../modules/surveys/public-link.ts';
import {
  createTemplateDraft, draftsInReach, getSurvey, listResponseAnswers, listResponses, publishInReach, surveySummaries,
} from '../../modules/surveys/service.ts';
import { TEMPLATE_LANGUAGES } from '../../modules/surveys/templates.ts';
import { roleAtLeast } from '../../modules/users/service.ts';
import { answerWords } from './answer-words.ts';
import { checkBody, field, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf, userOf } from './session.ts';
import { surveysCatalog } from './surveys-catalog.ts';

const RESPONSES_PER_PAGE = 20;
/** Response channels named in words (any other is shown as sent: the admin API takes any name). */
const KNOWN_CHANNELS = ['email', 'qr_code', 'sms', 'web'];
const RULE_FIELDS = ['node_id', 'delay_hours', 'consent', 'max_age_days', 'cooldown_days'] as const;

/** The add-rule form as typed: strings, to show again beside a fault. */
type RuleForm = Record<(typeof RULE_FIELDS)[number], string>;
const EMPTY_RULE: RuleForm = { node_id: '', delay_hours: '24', consent: 'granted', max_age_days: '14', cooldown_days: '30' };

const NEW_FIELDS = ['name', 'node_id', 'primary_language'] as const;
/** The new-survey form as typed. */
type NewSurveyForm = Record<(typeof NEW_FIELDS)[number], string>;
const NewSurveyInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }), node_id: Type.String({ format: 'uuid' }),
  primary_language: Type.Union(TEMPLATE_LANGUAGES.map((l) => Type.Literal(l))),
}, { additionalProperties: false });

const ruleFormOf = (request: FastifyRequest): RuleForm => Object.fromEntries(RULE_FIELDS.map((f) => [f, field(request, f).trim()])) as RuleForm;

/** Numbers where the form has digits, so the schema names a wrong value ("body.delay_hours must be >= 0"). */
function ruleBody(form: RuleForm): Record<string, unknown> {
  const number = (v: string) => (v !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
  return {
    node_id: form.node_id, delay_hours: number(form.delay_hours), consent: form.consent,
    max_age_days: number(form.max_age_days), cooldown_days: number(form.cooldown_days),
  };
}

export const surveysPage: DashboardPage = {
  nav: [{ href: '/surveys', label: 'nav.surveys', least: 'viewer', feature: 'surveys' }],
  routes(web, ctx: AppContext) {
    const cursors = cursorsFor(ctx.config.secretKey);
    // The hotels a public (QR-code) link may name for this user, and the chosen one's link (?qr=<hotel id>).
    const publicLinkOf = async (request: FastifyRequest, survey: { id: string; node_id: string }, asked: unknown) => {
      const hotels = await publicLinkProperties(ctx.db, survey, await listVisibleProperties(ctx.db, scopeOf(request), ctx.propertyNames));
      const chosen = typeof asked === 'string' ? hotels.find((h) => h.id === asked.toLowerCase()) ?? null : null;
      if (typeof asked === 'string' && asked !== '' && chosen === null) throw new AppError(404, 'no such hotel in your reach under this survey');
      const link = chosen === null ? null : {
        hotel: chosen, url: `${ctx.config.publicUrl}${publicSurveyPath(survey.id, chosen.id)}`,
        image: `/surveys/${encodeURIComponent(survey.id)}/qr.svg?node=${encodeURIComponent(chosen.id)}`,
      };
      return { hotels, link };
    };

    const show = async (request: FastifyRequest, reply: FastifyReply, shown: { ruleForm?: RuleForm; fault?: FormFault | null; newForm?: NewSurveyForm; newFault?: FormFault | null } = {}) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), surveysCatalog);
      const query = request.query as { survey?: unknown; cursor?: unknown; done?: unknown; qr?: unknown };
      const surveys = await surveySummaries(ctx.db, principal);
      // Managers and owners make and publish surveys of their reach (the standard post-stay one).
      const canManage = roleAtLeast(userOf(request).role, 'manager');
      const [drafts, nodes] = await Promise.all([canManage ? draftsInReach(ctx.db, principal) : [], listVisibleNodes(ctx.db, principal)]);
      const nodeNames = new Map(nodes.map((n) => [n.id, n.name]));
      let chosen = null;
      if (typeof query.survey === 'string' && query.survey !== '') {
        const survey = await getSurvey(ctx.db, principal, query.survey);
        const binding = `dashboard /surveys\n${survey.id}`;
        const page = cursors.sealPage(binding, await listResponses(ctx.db, principal, survey.id,
          cursors.open(binding, typeof query.cursor === 'string' ? query.cursor : undefined), RESPONSES_PER_PAGE));
        const answers = await Promise.all(page.data.map((r) => listResponseAnswers(ctx.db, principal, survey.id, r.id)));
        chosen = {
          survey, responses: page.data.map((r, i) => ({ ...r, answers: answers[i]! })),
          words: answerWords(survey.published_definition, survey.primary_language, languageOf(request), { yes: t('surveys.yes'), no: t('surveys.no') }),
          next: page.next_cursor ? `/surveys?survey=${survey.id}&cursor=${encodeURIComponent(page.next_cursor)}` : null,
          invitations: await invitationOverview(ctx.db, principal, survey.id),
          qr: await publicLinkOf(request, survey, query.qr),
          // Each response's hotel, by name (a group-wide survey gathers several hotels' answers).
          names: nodeNames,
        };
      }
      return renderPage(request, reply, 'dashboard/surveys.eta', {
        title: t('surveys.title'), surveys, chosen, consentModes: CONSENT_MODES,
        // A response's status and channel in words; a channel an integrator named itself stays as it is.
        statusWord: (status: string) => (status === 'started' || status === 'completed' ? t(`surveys.status.${status}`) : status),
        channelWord: (channel: string) => (KNOWN_CHANNELS.includes(channel) ? t(`surveys.channel.${channel}` as 'surveys.channel.email') : channel),
        ruleForm: shown.ruleForm ?? EMPTY_RULE, fault: shown.fault ?? null,
        // Managers and owners: the new-survey form, drafts to publish, invitation rules to start and stop.
        canManage, drafts, nodes, nodeNames, templateLanguages: TEMPLATE_LANGUAGES,
        languageName: (code: string) => new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code,
        newForm: shown.newForm ?? { name: '', node_id: principal.nodeId, primary_language: languageOf(request) }, newFault: shown.newFault ?? null,
        surveyNotice: query.done === 'drafted' || query.done === 'published' ? t(`surveys.${query.done}`) : null,
        // After starting or stopping invitations (?done=…): said beside the rules.
        notice: query.done === 'started' || query.done === 'stopped' || query.done === 'already' ? t(`inv.${query.done}`) : null,
        pageUrl: chosen === null ? '/surveys' : `/surveys?survey=${chosen.survey.id}#invitations`,
      }, surveysCatalog);
    };

    web.get('/surveys', { preHandler: requireUser('viewer', 'surveys') }, async (request, reply) => show(request, reply));

    // A draft of the standard post-stay survey, for a node of the user's reach.
    web.post('/surveys', { preHandler: requireUser('manager', 'surveys') }, async (request, reply) => {
      const form = Object.fromEntries(NEW_FIELDS.map((f) => [f, field(request, f).trim()])) as NewSurveyForm;
      try {
        await createTemplateDraft(ctx.db, scopeOf(request), checkBody(NewSurveyInput, { ...form }));
      } catch (error) {
        const newFault = formFault(error, [...NEW_FIELDS], languageOf(request));
        return show(request, reply.status(newFault.status), { newForm: form, newFault });
      }
      return reply.redirect('/surveys?done=drafted#drafts', 303);
    });

    web.post('/surveys/:id/publish', { preHandler: requireUser('manager', 'surveys') }, async (request, reply) => {
      const survey = await publishInReach(ctx.db, scopeOf(request), (request.params as { id: string }).id);
      return reply.redirect(`/surveys?survey=${encodeURIComponent(survey.id)}&done=published#invitations`, 303);
    });

    // The QR code of a hotel's public link, as an SVG to show, print or download.
    web.get('/surveys/:id/qr.svg', { preHandler: requireUser('viewer', 'surveys') }, async (request, reply) => {
      const survey = await getSurvey(ctx.db, scopeOf(request), (request.params as { id: string }).id);
      const { link } = await publicLinkOf(request, survey, (request.query as { node?: unknown }).node);
      if (link === null) throw new AppError(404, 'name a hotel of your reach under this survey: ?node=<hotel id>');
      return reply.type('image/svg+xml; charset=utf-8').header('Cache-Control', 'private, max-age=3600').send(qrCodeSvg(link.url));
    });

    // Turn invitations on for a node of the user's reach (managers and owners).
    web.post('/surveys/:id/rules', { preHandler: requireUser('manager', 'surveys') }, async (request, reply) => {
      const surveyId = (request.params as { id: string }).id;
      const form = ruleFormOf(request);
      let created: boolean;
      try {
        ({ created } = await createRuleInReach(ctx.db, scopeOf(request), surveyId, checkBody(RuleInput, ruleBody(form))));
      } catch (error) {
        const fault = formFault(error, [...RULE_FIELDS], languageOf(request));
        (request.query as Record<string, string>).survey = surveyId;
        return show(request, reply.status(fault.status), { ruleForm: form, fault });
      }
      return reply.redirect(`/surveys?survey=${encodeURIComponent(surveyId)}&done=${created ? 'started' : 'already'}#invitations`, 303);
    });

    web.post('/surveys/:id/rules/:rule/delete', { preHandler: requireUser('manager', 'surveys') }, async (request, reply) => {
      const { id, rule } = request.params as { id: string; rule: string };
      await deleteRuleInReach(ctx.db, scopeOf(request), rule);
      return reply.redirect(`/surveys?survey=${encodeURIComponent(id)}&done=stopped#invitations`, 303);
    });
  },
};
