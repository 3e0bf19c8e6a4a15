// Public v4 route of guests: POST /guests (write-only; guests:write reads nothing back).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { rateLimit } from '../../http/rate-limit.ts';
import { errorResponses } from '../../http/schemas.ts';
import { Guest, GuestPushInput, normaliseEmailHook, nullMeansOmittedHook, toGuestPush } from './schemas.ts';
import { type GuestContext, pushGuest } from './service.ts';

export function guestRoutes(app: FastifyInstance, ctx: RouteContext & GuestContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/guests', {
    schema: {
      operationId: 'pushGuest',
      tags: ['guests'],
      summary: 'Create or update a guest at a property, and optionally one stay',
      description: 'Guest identity is (property, trimmed lower-cased e-mail); stay identity is (property, reservation.external_id). '
        + '201 when this call created the guest, 200 when it updated it in place. Erased guests answer 409.',
      body: GuestPushInput,
      response: { 200: Guest, 201: Guest, ...errorResponses(400, 409, 422, 429) },
    },
    onRequest: requireKey(ctx, 'guests:write', 'guests'),
    // Counted before the body is read: a push refused as malformed (not JSON, another media type, too
    // large, breaking the schema) still uses up the key's window.
    preParsing: rateLimit(ctx.rateLimits, ctx.config.rateLimitMax, ctx.config.rateLimitWindowS),
    preValidation: [normaliseEmailHook, nullMeansOmittedHook],
  }, async (request, reply) => {
    const result = await pushGuest(ctx, request.principal, toGuestPush(request.body));
    return reply.status(result.created ? 201 : 200).send(result.guest);
  });
}
