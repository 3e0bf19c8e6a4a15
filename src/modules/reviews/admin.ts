// Operator routes of reviews: create/upsert, reply, hide, and alert rules.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { createAlertRule } from './alerts.ts';
import { AlertRuleInput, HideInput, ReplyInput, ReviewInput } from './schemas.ts';
import { replyToReview, setHidden, upsertReview } from './service.ts';

export function reviewAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/accounts/:id/reviews', { schema: { tags: ['admin'], params: IdParams, body: ReviewInput } }, async (request, reply) => {
    const { review, created } = await upsertReview(ctx.db, request.params.id, request.body);
    return reply.status(created ? 201 : 200).send(review);
  });

  r.put('/reviews/:id/reply', { schema: { tags: ['admin'], params: IdParams, body: ReplyInput } }, async (request) =>
    replyToReview(ctx.db, request.params.id, request.body.text, request.body.replied_at));

  r.patch('/reviews/:id', { schema: { tags: ['admin'], params: IdParams, body: HideInput } }, async (request) =>
    setHidden(ctx.db, request.params.id, request.body.is_hidden));

  r.post('/accounts/:id/alert-rules', { schema: { tags: ['admin'], params: IdParams, body: AlertRuleInput } }, async (request, reply) => {
    return reply.status(201).send(await createAlertRule(ctx.db, request.params.id, request.body));
  });
}
