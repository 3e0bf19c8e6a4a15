// Public v4 routes of webhooks: account-wide endpoint management (webhooks:manage), delivery lists,
// the one-attempt re-send, secret rotation and the test ping.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { IdParams, List, errorResponses } from '../../http/schemas.ts';
import { Deleted, DeliveryParams, SecretRotated, SecretRotationInput, WebhookDelivery, WebhookEndpoint, WebhookEndpointCreated, WebhookEndpointInput, WebhookEndpointPatch } from './schemas.ts';
import { createEndpoint, deleteEndpoint, endpointDelivery, getEndpoint, listDeliveries, listEndpoints, resendDelivery, updateEndpoint } from './service.ts';
import { rotateSecret } from './secrets.ts';
import { countSend, pingWithin } from './send-window.ts';

export function webhookRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = requireKey(ctx, 'webhooks:manage', 'webhooks');
  const tags = ['webhooks'];
  const settings = { secretKey: ctx.config.secretKey, endpointLimit: ctx.config.webhookEndpointLimit };

  r.get('/webhooks', {
    schema: { operationId: 'listWebhookEndpoints', tags, summary: 'The account\'s webhook endpoints (never their secrets)', response: { 200: List(WebhookEndpoint), ...errorResponses() } },
    onRequest,
  }, async (request) => listEndpoints(ctx.db, request.principal));

  // An answer that carries a secret (this one, a rotation's, an admin API key's) is sent no-store: no cache keeps it.
  r.post('/webhooks', {
    schema: {
      operationId: 'createWebhookEndpoint',
      tags, summary: 'Register an endpoint; the signing secret is returned this once', body: WebhookEndpointInput,
      response: { 201: WebhookEndpointCreated, ...errorResponses(400, 409) },
    },
    onRequest,
  }, async (request, reply) => reply.status(201).header('cache-control', 'no-store').send(await createEndpoint(ctx.db, settings, request.principal, request.body)));

  r.get('/webhooks/:id', {
    schema: { operationId: 'getWebhookEndpoint', tags, summary: 'One endpoint (never its secret)', params: IdParams, response: { 200: WebhookEndpoint, ...errorResponses(404) } },
    onRequest,
  }, async (request) => getEndpoint(ctx.db, request.principal, request.params.id));

  r.patch('/webhooks/:id', {
    schema: {
      operationId: 'updateWebhookEndpoint',
      tags, summary: 'Change an endpoint; is_active=false pauses its deliveries, true resumes them', params: IdParams,
      body: WebhookEndpointPatch, response: { 200: WebhookEndpoint, ...errorResponses(400, 404) },
    },
    onRequest,
  }, async (request) => updateEndpoint(ctx.db, request.principal, request.params.id, request.body));

  r.delete('/webhooks/:id', {
    schema: { operationId: 'deleteWebhookEndpoint', tags, summary: 'Delete an endpoint and its deliveries', params: IdParams, response: { 200: Deleted, ...errorResponses(404) } },
    onRequest,
  }, async (request) => deleteEndpoint(ctx.db, request.principal, request.params.id));

  r.get('/webhooks/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags, summary: 'The endpoint\'s 100 most recent deliveries, newest first', params: IdParams,
      response: { 200: List(WebhookDelivery), ...errorResponses(404) },
    },
    onRequest,
  }, async (request) => listDeliveries(ctx.db, request.principal, request.params.id));

  r.post('/webhooks/:id/deliveries/:deliveryId/retry', {
    schema: {
      operationId: 'retryWebhookDelivery',
      tags, summary: 'Re-send a delivered or failed delivery: one attempt, not counted toward auto-disable', params: DeliveryParams,
      response: { 202: WebhookDelivery, ...errorResponses(404, 409, 429) },
    },
    onRequest,
  }, async (request, reply) => {
    // An unknown delivery is a 404 before it counts in (or is refused by) the endpoint's window.
    await endpointDelivery(ctx.db, request.principal, request.params.id, request.params.deliveryId);
    await countSend(ctx, request.principal, request.params.id, reply);
    return reply.status(202).send(await resendDelivery(ctx.db, request.principal, request.params.id, request.params.deliveryId));
  });

  r.post('/webhooks/:id/secret/rotate', {
    schema: {
      operationId: 'rotateWebhookSecret',
      tags, summary: 'A new signing secret, returned this once; the previous one keeps signing for the grace period', params: IdParams,
      body: SecretRotationInput, response: { 200: SecretRotated, ...errorResponses(400, 404, 409) },
    },
    onRequest,
    // The body is optional: none at all (or an empty one sent as JSON: app.ts) means the defaults.
    config: { optionalBody: true },
    preValidation: async (request) => {
      if (request.body === undefined || request.body === null) request.body = {};
    },
  }, async (request, reply) => reply.header('cache-control', 'no-store').send(await rotateSecret(ctx.db, settings, request.principal, request.params.id, request.body)));

  r.post('/webhooks/:id/test', {
    schema: {
      operationId: 'testWebhookEndpoint',
      tags, summary: 'Queue a signed ping delivery to this endpoint, whatever it subscribes to', params: IdParams,
      description: `At most WEBHOOK_TEST_LIMIT (default 30) new pings a minute per endpoint: past that, the answer is the endpoint's latest ping again, and nothing new is sent.`,
      response: { 200: WebhookDelivery, ...errorResponses(404) },
    },
    onRequest,
  }, async (request, reply) => pingWithin(ctx, request.principal, request.params.id, reply));
}
