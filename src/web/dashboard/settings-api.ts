// Settings → API (owner): create a key bound to a node of the user's subtree with chosen scopes (the
// key is shown on the answer to that POST only), list the keys with their last use, revoke one
// (it answers 401 at once on this instance: the principal cache is cleared).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '../../access/scopes.ts';
import type { AppContext } from '../../context.ts';
import { createKeyWithin, listKeys, revokedKeyName, revokeKeyWithin } from '../../modules/keys/service.ts';
import { listVisibleNodes } from '../../modules/nodes/service.ts';
import { KeyInput } from '../../modules/keys/schemas.ts';
import { checkBody, field, fieldList, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { COPY_SECRET_JS } from '../locations.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';
import { settingsCatalog } from './settings-catalog.ts';

interface KeyForm {
  name: string;
  node_id: string;
  scopes: string[];
}

interface Shown {
  form?: KeyForm;
  fault?: FormFault | null;
  newKey?: string | null;
  notice?: string | null;
}

const FIELDS = ['name', 'node_id', 'scopes'];

export const settingsApiPage: DashboardPage = {
  nav: [{ href: '/settings/api', label: 'nav.settings', least: 'owner', section: '/settings' }],
  routes(web, ctx: AppContext) {
    const guard = { preHandler: requireUser('owner') };

    const show = async (request: FastifyRequest, reply: FastifyReply, shown: Shown = {}) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), settingsCatalog);
      const [nodes, keys] = await Promise.all([listVisibleNodes(ctx.db, principal), listKeys(ctx.db, principal)]);
      return renderPage(request, reply, 'dashboard/settings-api.eta', {
        // The scopes the user may grant: all of them, but webhooks:manage for an owner bound below the root.
        title: t('api.title'), section: 'api', nodes, keys, scopes: SCOPES.filter((s) => principal.scopes.includes(s)),
        form: shown.form ?? { name: '', node_id: principal.nodeId, scopes: [] },
        fault: shown.fault ?? null, newKey: shown.newKey ?? null, notice: shown.notice ?? null,
        scripts: shown.newKey ? [COPY_SECRET_JS] : [],
      }, settingsCatalog);
    };

    web.get('/settings/api', guard, async (request, reply) => {
      const revoked = (request.query as { revoked?: unknown }).revoked;
      return show(request, reply, { notice: typeof revoked === 'string' ? await revokedNotice(request, revoked) : null });
    });

    /** Names the key revoked (`?revoked=<id>`): with several alike, which one went is worth saying. */
    const revokedNotice = async (request: FastifyRequest, id: string): Promise<string | null> => {
      const t = pageTranslator(languageOf(request), settingsCatalog);
      const name = await revokedKeyName(ctx.db, scopeOf(request), id);
      if (name === undefined) return null;
      return name === null ? t('api.revoked') : t('api.revokedNamed', { name });
    };

    web.post('/settings/api', guard, async (request, reply) => {
      const form: KeyForm = { name: field(request, 'name').trim(), node_id: field(request, 'node_id'), scopes: fieldList(request, 'scopes') };
      try {
        const input = checkBody<KeyInput>(KeyInput, { node_id: form.node_id, scopes: form.scopes, name: form.name === '' ? null : form.name });
        const created = await createKeyWithin(ctx.db, scopeOf(request), input);
        return show(request, reply.status(201), { newKey: created.key });
      } catch (error) {
        const fault = formFault(error, FIELDS, languageOf(request));
        return show(request, reply.status(fault.status), { form, fault });
      }
    });

    web.post('/settings/api/:id/revoke', guard, async (request, reply) => {
      const id = (request.params as { id: string }).id;
      await revokeKeyWithin(ctx.db, scopeOf(request), id);
      // This instance forgets every resolved key now; others within the cache's TTL (2 s).
      ctx.principals.clear();
      return reply.redirect(`/settings/api?revoked=${encodeURIComponent(id)}`, 303);
    });
  },
};
