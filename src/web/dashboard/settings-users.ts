// Settings → Users (owner): the people of the account within the owner's reach, create one (e-mail,
// password, role, node), change a role, remove one (its sessions end at once). Owners cannot change
// or remove themselves here, so an account always keeps the owner who is acting.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listVisibleNodes } from '../../modules/nodes/service.ts';
import { ROLES } from '../../modules/users/schemas.ts';
import { changeRoleWithin, createUserWithin, listUsers, removeUserWithin } from '../../modules/users/service.ts';
import { field, type FormFault, formFault } from './forms.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf, userOf } from './session.ts';
import { settingsCatalog } from './settings-catalog.ts';

interface UserForm {
  email: string;
  role: string;
  node_id: string;
}

const FIELDS = ['email', 'password', 'role', 'node_id'];
const NOTICES = ['created', 'removed', 'roleChanged'] as const;
const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

export const settingsUsersPage: DashboardPage = {
  routes(web, ctx: AppContext) {
    const guard = { preHandler: requireUser('owner') };

    const show = async (request: FastifyRequest, reply: FastifyReply, shown: { form?: UserForm; fault?: FormFault | null } = {}) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), settingsCatalog);
      const done = (request.query as { done?: unknown }).done;
      const notice = NOTICES.includes(done as (typeof NOTICES)[number]) ? t(`users.${done as (typeof NOTICES)[number]}`) : null;
      const [nodes, users] = await Promise.all([listVisibleNodes(ctx.db, principal), listUsers(ctx.db, principal)]);
      return renderPage(request, reply, 'dashboard/settings-users.eta', {
        title: t('users.title'), section: 'users', nodes, users, roles: ROLES, selfId: userOf(request).userId,
        wholeAccount: principal.isAccountRoot, notice,
        form: shown.form ?? { email: '', role: 'viewer', node_id: principal.isAccountRoot ? '' : principal.nodeId }, fault: shown.fault ?? null,
      }, settingsCatalog);
    };

    web.get('/settings/users', guard, async (request, reply) => show(request, reply));

    web.post('/settings/users', guard, async (request, reply) => {
      const form: UserForm = { email: field(request, 'email').trim(), role: field(request, 'role'), node_id: field(request, 'node_id') };
      try {
        await createUserWithin(ctx.db, scopeOf(request), {
          email: form.email, password: field(request, 'password'), role: form.role as 'viewer', node_id: form.node_id === '' ? null : form.node_id,
        });
      } catch (error) {
        const fault = formFault(error, FIELDS, languageOf(request));
        return show(request, reply.status(fault.status), { form, fault });
      }
      return reply.redirect('/settings/users?done=created', 303);
    });

    web.post('/settings/users/:id/role', guard, async (request, reply) => {
      await changeRoleWithin(ctx.db, scopeOf(request), userOf(request).userId, idOf(request), field(request, 'role'));
      ctx.sessions.clear();
      return reply.redirect('/settings/users?done=roleChanged', 303);
    });

    web.post('/settings/users/:id/remove', guard, async (request, reply) => {
      await removeUserWithin(ctx.db, scopeOf(request), userOf(request).userId, idOf(request));
      ctx.sessions.clear();
      return reply.redirect('/settings/users?done=removed', 303);
    });
  },
};
