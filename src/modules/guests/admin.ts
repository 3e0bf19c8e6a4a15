// Operator routes of guests: look one up (consent, custom fields, stays), unsubscribe, GDPR erase.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { GuestIdentity, normaliseEmailHook } from './schemas.ts';
import { eraseGuest, type GuestContext, showGuest, unsubscribeGuest } from './service.ts';

export function guestAdminRoutes(app: FastifyInstance, ctx: RouteContext & GuestContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const preValidation = normaliseEmailHook;

  r.get('/accounts/:id/guests', { schema: { tags: ['admin'], params: IdParams, querystring: GuestIdentity }, preValidation }, async (request) =>
    showGuest(ctx, request.params.id, request.query.property_id, request.query.email));

  r.post('/accounts/:id/guests/unsubscribe', { schema: { tags: ['admin'], params: IdParams, body: GuestIdentity }, preValidation }, async (request) =>
    unsubscribeGuest(ctx, request.params.id, request.body.property_id, request.body.email));

  r.post('/accounts/:id/guests/erase', { schema: { tags: ['admin'], params: IdParams, body: GuestIdentity }, preValidation }, async (request) =>
    eraseGuest(ctx, request.params.id, request.body.property_id, request.body.email));
}
