// Public v4 route of analytics: GET /analytics/scores for the key's subtree.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { requireKey } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { AnalyticsScores, ScoresQuery } from './schemas.ts';
import { scores } from './service.ts';

export function analyticsRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/analytics/scores', {
    schema: {
      operationId: 'getAnalyticsScores',
      tags: ['analytics'], summary: 'Reputation scores of the visible reviews of the key\'s subtree, or of a node, platforms or time range in it',
      querystring: ScoresQuery, response: { 200: AnalyticsScores, ...errorResponses(400, 404) },
    },
    onRequest: requireKey(ctx, 'analytics:read', 'analytics'),
  }, async (request) => scores(ctx.db, request.principal, request.query));
}
