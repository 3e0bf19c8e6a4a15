// Operator routes of API keys: list and read (never the key or its hash), create (the key is in this
// answer only) and revoke.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { KeyInput } from './schemas.ts';
import { accountKeys, createKey, keyInfo, revokeKey } from './service.ts';

export function keyAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/accounts/:id/api-keys', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    ({ data: await accountKeys(ctx.db, request.params.id) }));

  r.get('/api-keys/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => keyInfo(ctx.db, request.params.id));

  r.post('/accounts/:id/api-keys', { schema: { tags: ['admin'], params: IdParams, body: KeyInput } }, async (request, reply) =>
    reply.status(201).header('cache-control', 'no-store').send(await createKey(ctx.db, request.params.id, request.body)));

  r.delete('/api-keys/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => {
    await revokeKey(ctx.db, request.params.id);
    ctx.principals.clear();
    return { id: request.params.id, revoked: true };
  });
}
