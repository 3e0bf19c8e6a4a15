// Operator routes of accounts, nodes and API keys.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { IdParams, Uuid } from '../../http/schemas.ts';
import { createKey, revokeKey } from '../keys/service.ts';
import { createNode, toNode } from '../nodes/service.ts';
import { NodeInput } from '../nodes/schemas.ts';
import { AccountInput, AccountPatch } from './schemas.ts';
import { createAccount, requireAccount, toAccount, updateAccount } from './service.ts';

const KeyInput = Type.Object({
  node_id: Uuid,
  scopes: Type.Array(Type.String(), { minItems: 1 }),
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
}, { additionalProperties: false });

export function accountAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/accounts', { schema: { tags: ['admin'], body: AccountInput } }, async (request, reply) =>
    reply.status(201).send(toAccount(await createAccount(ctx.db, request.body), ctx.config)));

  r.patch('/accounts/:id', { schema: { tags: ['admin'], params: IdParams, body: AccountPatch } }, async (request) => {
    const account = await updateAccount(ctx.db, request.params.id, request.body);
    ctx.principals.clear();
    return toAccount(account, ctx.config);
  });

  r.post('/accounts/:id/nodes', { schema: { tags: ['admin'], params: IdParams, body: NodeInput } }, async (request, reply) => {
    await requireAccount(ctx.db, request.params.id);
    const node = await createNode(ctx.db, request.params.id, request.body);
    ctx.principals.clear();
    return reply.status(201).send(toNode(node));
  });

  r.post('/accounts/:id/api-keys', { schema: { tags: ['admin'], params: IdParams, body: KeyInput } }, async (request, reply) => {
    await requireAccount(ctx.db, request.params.id);
    return reply.status(201).send(await createKey(ctx.db, request.params.id, request.body));
  });

  r.delete('/api-keys/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => {
    await revokeKey(ctx.db, request.params.id);
    ctx.principals.clear();
    return { id: request.params.id, revoked: true };
  });
}
