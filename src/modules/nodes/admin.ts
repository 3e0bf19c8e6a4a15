// Operator routes of the node hierarchy: an account's nodes as a tree, and adding one.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { NodeInput } from './schemas.ts';
import { accountNodeTree, createNode, toNode } from './service.ts';

export function nodeAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/accounts/:id/nodes', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    ({ data: await accountNodeTree(ctx.db, request.params.id) }));

  app.withTypeProvider<TypeBoxTypeProvider>().post('/accounts/:id/nodes', {
    schema: { tags: ['admin'], params: IdParams, body: NodeInput },
  }, async (request, reply) => {
    const node = await createNode(ctx.db, request.params.id, request.body);
    ctx.principals.clear();
    return reply.status(201).send(toNode(node));
  });
}
