// Operator routes of dashboard users: create (the password is hashed, never stored or logged) and delete (its sessions end at once).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { UserInput } from './schemas.ts';
import { createUser, deleteUser } from './service.ts';

export function userAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/accounts/:id/users', { schema: { tags: ['admin'], params: IdParams, body: UserInput } }, async (request, reply) =>
    reply.status(201).send(await createUser(ctx.db, request.params.id, request.body)));

  r.delete('/users/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => {
    await deleteUser(ctx.db, request.params.id);
    ctx.sessions.clear();
    return { id: request.params.id, deleted: true };
  });
}
