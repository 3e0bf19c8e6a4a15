// Operator routes of guests: look one up (consent, custom fields, stays), unsubscribe, GDPR erase.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { IdParams } from '../../http/schemas.ts';
import { requireAccount } from '../accounts/service.ts';
import { guestDeps } from './deps.ts';
import { eraseGuest, showGuest, unsubscribeGuest } from './operator.ts';
import { GuestIdentity } from './schemas.ts';
import { normaliseEmailHook } from './validate.ts';

export function guestAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const deps = guestDeps(ctx.config, ctx.database);
  const preValidation = normaliseEmailHook;

  r.get('/accounts/:id/guests', { schema: { tags: ['admin'], params: IdParams, querystring: GuestIdentity }, preValidation }, async (request) => {
    await requireAccount(ctx.db, request.params.id);
    return showGuest(deps, request.params.id, request.query.property_id, request.query.email);
  });

  r.post('/accounts/:id/guests/unsubscribe', { schema: { tags: ['admin'], params: IdParams, body: GuestIdentity }, preValidation }, async (request) => {
    await requireAccount(ctx.db, request.params.id);
    const { guest, changed } = await unsubscribeGuest(deps, request.params.id, request.body.property_id, request.body.email);
    if (changed) ctx.outbox.notify();
    return guest;
  });

  r.post('/accounts/:id/guests/erase', { schema: { tags: ['admin'], params: IdParams, body: GuestIdentity }, preValidation }, async (request) =>  {
    await requireAccount(ctx.db, request.params.id);
    return eraseGuest(deps, request.params.id, request.body.property_id, request.body.email);
  });
}
