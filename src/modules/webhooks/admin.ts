// Operator routes of webhooks: a delivery with its attempts, an account's recent deliveries, and
// the re-send of a failed delivery (one more attempt, recorded like the others).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { DeliveryListQuery } from './schemas.ts';
import { accountDeliveries, deliveryDetail, retryDelivery } from './service.ts';

export function webhookAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/deliveries/:id', { schema: { tags: ['admin'], params: IdParams } }, async (request) => deliveryDetail(ctx.db, request.params.id));

  r.get('/accounts/:id/deliveries', { schema: { tags: ['admin'], params: IdParams, querystring: DeliveryListQuery } }, async (request) =>
    accountDeliveries(ctx.db, request.params.id, request.query.status));

  r.post('/deliveries/:id/retry', { schema: { tags: ['admin'], params: IdParams } }, async (request, reply) =>
    reply.status(202).send(await retryDelivery(ctx.db, request.params.id)));
}
