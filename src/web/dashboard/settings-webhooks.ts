// Settings → Webhooks (owner): create an endpoint (its signing secret shown on that answer only),
// edit it (its own page, /settings/webhooks/{id}), pause or resume, send a test, delete, and each
// endpoint's delivery log with the result of the latest attempt and a re-send of a failed one. The
// public API's webhook service does every action, with the user's principal (account-wide, as for a key).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { refusalForeseen } from '../../delivery/address-guard.ts';
import { AppError } from '../../http/errors.ts';
import { parseAllowList } from '../../lib/allow-list.ts';
import { invalid } from '../../lib/errors.ts';
import { deliveryLog, SUBSCRIBABLE_EVENTS } from '../../modules/webhooks/log.ts';
import { WebhookEndpointInput, WebhookEndpointPatch } from '../../modules/webhooks/schemas.ts';
import { rotateSecret } from '../../modules/webhooks/secrets.ts';
import { countSend } from '../../modules/webhooks/send-window.ts';
import { createEndpoint, deleteEndpoint, listEndpoints, ownEndpoint, queuePing, resendDelivery, updateEndpoint } from '../../modules/webhooks/service.ts';
import { checkBody, field, fieldList, type FormFault, formFault } from './forms.ts';
import { keepStoredPassword, maskedUrl } from './url-password.ts';
import type { DashboardPage } from './plugin.ts';
import { COPY_SECRET_JS } from '../locations.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';
import { settingsCatalog } from './settings-catalog.ts';

interface EndpointForm {
  name: string;
  url: string;
  events: string[];
}

const FIELDS = ['name', 'url', 'events'];
/** The fault of a URL that keeps ••• for its password but names another server or user (url-password.ts). */
const PASSWORD_AGAIN = 'url keeps the stored password (•••) only for the same server and user: type the password again';
const NOTICES = ['deleted', 'saved', 'tested', 'resent', 'pausedNotice', 'resumedNotice'] as const;

const formOf = (request: FastifyRequest): EndpointForm => ({ name: field(request, 'name').trim(), url: field(request, 'url').trim(), events: fieldList(request, 'events') });
const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

export const settingsWebhooksPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    // Owners of the whole account only: endpoints receive every event of the account (sessions.ts).
    const wholeAccount = async (request: FastifyRequest) => {
      if (!scopeOf(request).scopes.includes('webhooks:manage')) {
        throw new AppError(403, pageTranslator(languageOf(request))('error.403webhooks'));
      }
    };
    const guard = { preHandler: [requireUser('owner', 'webhooks'), wholeAccount] };
    const settings = { secretKey: ctx.config.secretKey, endpointLimit: ctx.config.webhookEndpointLimit };
    // An endpoint at a private or local address is saved (the API's contract refuses it only at
    // delivery), but its card says now that its deliveries will fail, and why.
    const allow = parseAllowList(ctx.config.webhookAllowPrivate);
    const noticeOf = (request: FastifyRequest): string | null => {
      const done = (request.query as { done?: unknown }).done;
      return NOTICES.includes(done as (typeof NOTICES)[number]) ? pageTranslator(languageOf(request), settingsCatalog)(`hooks.${done as (typeof NOTICES)[number]}`) : null;
    };

    const showList = async (request: FastifyRequest, reply: FastifyReply, shown: { form?: EndpointForm; fault?: FormFault | null; secret?: string | null } = {}) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), settingsCatalog);
      const { data: endpoints } = await listEndpoints(ctx.db, principal);
      const logs = await Promise.all(endpoints.map((e) => deliveryLog(ctx.db, principal, e.id)));
      return renderPage(request, reply, 'dashboard/settings-webhooks.eta', {
        title: t('hooks.title'), section: 'webhooks', events: SUBSCRIBABLE_EVENTS,
        endpoints: await Promise.all(endpoints.map(async (endpoint, i) => ({
          ...endpoint, shownUrl: maskedUrl(endpoint.url), deliveries: logs[i]!, refusal: await refusalForeseen(allow, endpoint.url),
        }))),
        form: shown.form ?? { name: '', url: '', events: [] }, fault: shown.fault ?? null, secret: shown.secret ?? null, notice: noticeOf(request),
        scripts: shown.secret ? [COPY_SECRET_JS] : [],
      }, settingsCatalog);
    };

    /** The edit page; `secret`: a new signing secret, shown on this answer only. */
    const showEndpoint = async (request: FastifyRequest, reply: FastifyReply, shown: { form?: EndpointForm; fault?: FormFault | null; secret?: string } = {}) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), settingsCatalog);
      const endpoint = await ownEndpoint(ctx.db, principal, idOf(request));
      const events = JSON.parse(endpoint.events) as string[];
      return renderPage(request, reply, 'dashboard/settings-webhook.eta', {
        title: `${t('hooks.edit')}: ${endpoint.name}`, section: 'webhooks', events: SUBSCRIBABLE_EVENTS, endpoint, refusal: await refusalForeseen(allow, endpoint.url),
        deliveries: await deliveryLog(ctx.db, principal, endpoint.id, 50),
        form: shown.form ?? { name: endpoint.name, url: maskedUrl(endpoint.url), events }, fault: shown.fault ?? null, notice: noticeOf(request),
        secret: shown.secret ?? null, scripts: shown.secret ? [COPY_SECRET_JS] : [],
        // Where the answer to a POST here (a new secret, a fault) lives as a GET: reloading it shows the page, no secret.
        pageUrl: `/settings/webhooks/${endpoint.id}`,
        // While a rotation's grace period lasts, deliveries are signed with the previous secret too.
        previousUntil: endpoint.previous_secret_until !== null && endpoint.previous_secret_until > new Date().toISOString() ? endpoint.previous_secret_until : null,
      }, settingsCatalog);
    };

    web.get('/settings/webhooks', guard, async (request, reply) => showList(request, reply));

    web.post('/settings/webhooks', guard, async (request, reply) => {
      const form = formOf(request);
      try {
        const input = checkBody<WebhookEndpointInput>(WebhookEndpointInput, { ...form });
        const created = await createEndpoint(ctx.db, settings, scopeOf(request), input);
        return showList(request, reply.status(201), { secret: created.secret });
      } catch (error) {
        const fault = formFault(error, FIELDS, languageOf(request));
        return showList(request, reply.status(fault.status), { form, fault });
      }
    });

    web.get('/settings/webhooks/:id', guard, async (request, reply) => showEndpoint(request, reply));

    web.post('/settings/webhooks/:id', guard, async (request, reply) => {
      const form = formOf(request);
      try {
        const url = keepStoredPassword(form.url, (await ownEndpoint(ctx.db, scopeOf(request), idOf(request))).url);
        if (url === null) throw invalid(PASSWORD_AGAIN);
        const patch = checkBody<WebhookEndpointPatch>(WebhookEndpointPatch, { ...form, url });
        await updateEndpoint(ctx.db, scopeOf(request), idOf(request), patch);
      } catch (error) {
        const fault = formFault(error, FIELDS, languageOf(request));
        return showEndpoint(request, reply.status(fault.status), { form, fault });
      }
      return reply.redirect(`/settings/webhooks/${idOf(request)}?done=saved`, 303);
    });

    // A new signing secret; the previous one signs too for a day (rotateSecret's grace period), or
    // not at all when the owner says it leaked (`now`). A second rotation within that day replaces
    // the first new secret's grace (force), as the page says.
    web.post('/settings/webhooks/:id/secret', guard, async (request, reply) => {
      const leaked = field(request, 'now') === '1';
      const { secret } = await rotateSecret(ctx.db, settings, scopeOf(request), idOf(request), { force: true, ...(leaked ? { grace_period_seconds: 0 } : {}) });
      return showEndpoint(request, reply, { secret });
    });

    web.post('/settings/webhooks/:id/active', guard, async (request, reply) => {
      const active = field(request, 'is_active') === 'true';
      await updateEndpoint(ctx.db, scopeOf(request), idOf(request), { is_active: active });
      return reply.redirect(`/settings/webhooks?done=${active ? 'resumedNotice' : 'pausedNotice'}`, 303);
    });

    web.post('/settings/webhooks/:id/test', guard, async (request, reply) => {
      // The same window as POST /api/v4/webhooks/{id}/test: a few signed pings a minute per endpoint.
      await queuePing(ctx.db, scopeOf(request), await countSend(ctx, scopeOf(request), idOf(request), reply));
      return reply.redirect('/settings/webhooks?done=tested', 303);
    });

    web.post('/settings/webhooks/:id/delete', guard, async (request, reply) => {
      await deleteEndpoint(ctx.db, scopeOf(request), idOf(request));
      return reply.redirect('/settings/webhooks?done=deleted', 303);
    });

    web.post('/settings/webhooks/:id/deliveries/:delivery/resend', guard, async (request, reply) => {
      // Counted in the same window as test pings, as POST /api/v4/webhooks/{id}/deliveries/{id}/retry is.
      const endpointId = await countSend(ctx, scopeOf(request), idOf(request), reply);
      await resendDelivery(ctx.db, scopeOf(request), endpointId, (request.params as { delivery: string }).delivery);
      return reply.redirect('/settings/webhooks?done=resent', 303);
    });
  },
};
