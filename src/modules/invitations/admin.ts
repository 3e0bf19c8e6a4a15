// Operator routes of survey invitations: turn them on for a survey and a node subtree (a rule), list
// or stop rules, and see each invitation's state (scheduled, sent, failed with the SMTP reason,
// cancelled with why, opened, answered).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { createRule, deleteRule, listInvitations, listRules } from './rules.ts';
import { InvitationListQuery, RuleInput } from './schemas.ts';

export function invitationAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/surveys/:id/invitation-rules', { schema: { tags: ['admin'], params: IdParams, body: RuleInput } }, async (request, reply) =>
    reply.status(201).send(await createRule(ctx.db, request.params.id, request.body)));

  r.get('/surveys/:id/invitation-rules', { schema: { tags: ['admin'], params: IdParams } }, async (request) => listRules(ctx.db, request.params.id));

  r.delete('/invitation-rules/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => deleteRule(ctx.db, request.params.id));

  r.get('/surveys/:id/invitations', { schema: { tags: ['admin'], params: IdParams, querystring: InvitationListQuery } }, async (request) =>
    listInvitations(ctx.db, request.params.id, request.query));
}
