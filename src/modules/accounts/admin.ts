// Operator routes of accounts: list and read, create and change (plan features, webhook endpoint limit).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { AccountInput, AccountPatch, AdminListQuery } from './schemas.ts';
import { createAccount, listAccounts, requireAccount, toAccount, updateAccount } from './service.ts';

export function accountAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/accounts', { schema: { tags: ['admin'], querystring: AdminListQuery } }, async (request) => listAccounts(ctx.db, ctx.config, request.query));

  r.get('/accounts/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    toAccount(await requireAccount(ctx.db, request.params.id), ctx.config));

  r.post('/accounts', { schema: { tags: ['admin'], body: AccountInput } }, async (request, reply) =>
    reply.status(201).send(toAccount(await createAccount(ctx.db, request.body), ctx.config)));

  r.patch('/accounts/:id', { schema: { tags: ['admin'], params: IdParams, body: AccountPatch } }, async (request) => {
    const account = await updateAccount(ctx.db, request.params.id, request.body);
    ctx.principals.clear();
    ctx.sessions.clear();
    return toAccount(account, ctx.config);
  });
}
