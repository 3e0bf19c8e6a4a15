// Public v4 routes of surveys: published surveys of the subtree, their responses and answers.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { cursorsFor, listUrl, pageOf } from '../../http/pagination.ts';
import { IdParams, List, Page, PageQuery, errorResponses } from '../../http/schemas.ts';
import { ResponseIdParams, ResponseListQuery, Survey, SurveyAnswer, SurveyDetail, SurveyResponse } from './schemas.ts';
import { getSurvey, listResponseAnswers, listResponses, listSurveys } from './service.ts';

export function surveyRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const cursors = cursorsFor(ctx.config.secretKey);
  const onRequest = requireKey(ctx, 'surveys:read', 'surveys');

  const surveyPath = '/surveys';
  const surveyList = listUrl(app, surveyPath);
  r.get(surveyPath, {
    schema: {
      operationId: 'listSurveys',
      tags: ['surveys'], summary: 'Published surveys owned by nodes of the key\'s subtree, newest first',
      querystring: PageQuery, response: { 200: Page(Survey), ...errorResponses(400) },
    },
    onRequest,
  }, async (request) => pageOf(cursors, surveyList, request, request.query, (after, limit) => listSurveys(ctx.db, request.principal, after, limit)));

  r.get('/surveys/:id', {
    schema: { operationId: 'getSurvey', tags: ['surveys'], summary: 'One published survey with its published definition', params: IdParams, response: { 200: SurveyDetail, ...errorResponses(404) } },
    onRequest,
  }, async (request) => getSurvey(ctx.db, request.principal, request.params.id));

  const responsePath = '/surveys/:id/responses';
  const responseList = listUrl(app, responsePath);
  r.get(responsePath, {
    schema: {
      operationId: 'listSurveyResponses',
      tags: ['surveys'], summary: 'Responses to a survey given at nodes of the key\'s subtree, newest first; filters, and sort=updated_at for sync',
      params: IdParams, querystring: ResponseListQuery, response: { 200: Page(SurveyResponse), ...errorResponses(400, 404) },
    },
    onRequest,
  }, async (request) =>
    pageOf(cursors, responseList, request, request.query, (after, limit) => listResponses(ctx.db, request.principal, request.params.id, after, limit, request.query)));

  r.get('/surveys/:id/responses/:responseId/answers', {
    schema: {
      operationId: 'listSurveyAnswers',
      tags: ['surveys'], summary: 'The answers of one response, in the order given',
      params: ResponseIdParams, response: { 200: List(SurveyAnswer), ...errorResponses(404) },
    },
    onRequest,
  }, async (request) => ({ data: await listResponseAnswers(ctx.db, request.principal, request.params.id, request.params.responseId) }));
}
