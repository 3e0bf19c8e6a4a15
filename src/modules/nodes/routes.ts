// GET /nodes: the hierarchy within the key's subtree.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { List, errorResponses } from '../../http/schemas.ts';
import { Node } from './schemas.ts';
import { listVisibleNodes } from './service.ts';

export function nodeRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/nodes', {
    schema: { operationId: 'listNodes', tags: ['nodes'], summary: 'Nodes within the key\'s scope', response: { 200: List(Node), ...errorResponses() } },
    onRequest: requireKey(ctx, 'nodes:read', 'nodes'),
  }, async (request) => ({ data: await listVisibleNodes(ctx.db, request.principal) }));
}
