// Operator routes of insights: topics (global or an account's own), the account's own categories
// with keyword lists, review mentions, recommendations.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { AccountTopicInput, CategoryInput, CategoryPatch, MentionInput, RecommendationInput, TopicInput } from './schemas.ts';
import { createCategory, deleteCategory, listCategories, updateCategory } from './categories.ts';
import { createMention, createRecommendation, createTopic } from './service.ts';

export function insightAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/topics', { schema: { tags: ['admin'], body: TopicInput } }, async (request, reply) =>
    reply.status(201).send(await createTopic(ctx.db, null, request.body)));

  r.post('/accounts/:id/topics', { schema: { tags: ['admin'], params: IdParams, body: AccountTopicInput } }, async (request, reply) =>
    reply.status(201).send(await createTopic(ctx.db, request.params.id, request.body)));

  r.post('/accounts/:id/categories', { schema: { tags: ['admin'], params: IdParams, body: CategoryInput } }, async (request, reply) =>
    reply.status(201).send(await createCategory(ctx.db, request.params.id, request.body)));

  r.get('/accounts/:id/categories', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    ({ data: await listCategories(ctx.db, request.params.id) }));

  r.patch('/categories/:id', { schema: { tags: ['admin'], params: IdParams, body: CategoryPatch } }, async (request) =>
    updateCategory(ctx.db, request.params.id, request.body));

  r.delete('/categories/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    deleteCategory(ctx.db, request.params.id));

  r.post('/reviews/:id/mentions', { schema: { tags: ['admin'], params: IdParams, body: MentionInput } }, async (request, reply) =>
    reply.status(201).send(await createMention(ctx.db, request.params.id, request.body)));

  r.post('/accounts/:id/recommendations', { schema: { tags: ['admin'], params: IdParams, body: RecommendationInput } }, async (request, reply) =>
    reply.status(201).send(await createRecommendation(ctx.db, request.params.id, request.body)));
}
