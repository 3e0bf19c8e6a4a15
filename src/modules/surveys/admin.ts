// Operator routes of surveys: create, publish, record responses (with answers) and complete them.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { CompleteInput, ResponseInput, SurveyInput } from './schemas.ts';
import { completeResponse, createResponse, createSurvey, publishSurvey } from './service.ts';

export function surveyAdminRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/accounts/:id/surveys', { schema: { tags: ['admin'], params: IdParams, body: SurveyInput } }, async (request, reply) =>
    reply.status(201).send(await createSurvey(ctx.db, request.params.id, request.body)));

  r.post('/surveys/:id/publish', { schema: { tags: ['admin'], params: IdParams } }, async (request) =>
    publishSurvey(ctx.db, request.params.id));

  r.post('/surveys/:id/responses', { schema: { tags: ['admin'], params: IdParams, body: ResponseInput } }, async (request, reply) =>
    reply.status(201).send(await createResponse(ctx.db, request.params.id, request.body)));

  // The body is optional: an empty POST completes the response now.
  r.post('/responses/:id/complete', {
    schema: { tags: ['admin'], params: IdParams, body: CompleteInput },
    config: { optionalBody: true },
    preValidation: async (request) => {
      if (request.body === undefined || request.body === null) request.body = {};
    },
  }, async (request) => completeResponse(ctx.db, request.params.id, request.body.completed_at));
}
