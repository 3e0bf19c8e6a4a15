// GET /whoami: what the presented key resolves to.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { WhoAmI } from './schemas.ts';

export function whoamiRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/whoami', {
    schema: { operationId: 'whoami', tags: ['identity'], summary: 'The account, node and scopes of the key', response: { 200: WhoAmI, ...errorResponses() } },
    onRequest: requireKey(ctx, null, null),
  }, async (request) => ({ account_id: request.principal.accountId, node_id: request.principal.nodeId, scopes: request.principal.scopes }));
}
