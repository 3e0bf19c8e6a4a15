// Public v4 routes of reviews: GET /reviews (paginated, rate-limited) and GET /reviews/{id}.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { asBuilt } from '../../http/as-built.ts';
import { requireKey } from '../../http/auth.ts';
import { cursorsFor, listUrl, pageOf } from '../../http/pagination.ts';
import { rateLimit } from '../../http/rate-limit.ts';
import { IdParams, Page, errorResponses } from '../../http/schemas.ts';
import { Review, ReviewListQuery } from './schemas.ts';
import { getReview, listReviews } from './service.ts';

export function reviewRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const cursors = cursorsFor(ctx.config.secretKey);
  const onRequest = requireKey(ctx, 'reviews:read', 'reviews');

  const reviewPath = '/reviews';
  const reviewList = listUrl(app, reviewPath);
  r.get(reviewPath, {
    schema: {
      operationId: 'listReviews',
      tags: ['reviews'], summary: 'Reviews of the key\'s subtree, newest first, hidden ones included; filters, and sort=updated_at for sync',
      querystring: ReviewListQuery, response: { 200: Page(Review), ...errorResponses(400, 404, 429) },
    },
    onRequest,
    preParsing: rateLimit(ctx.rateLimits, ctx.config.rateLimitMax, ctx.config.rateLimitWindowS),
  }, async (request, reply) => asBuilt(reply, await pageOf(cursors, reviewList, request, request.query, (after, limit) => listReviews(ctx.db, request.principal, after, limit, request.query))));

  r.get('/reviews/:id', {
    schema: { operationId: 'getReview', tags: ['reviews'], summary: 'One review', params: IdParams, response: { 200: Review, ...errorResponses(404) } },
    onRequest,
  }, async (request) => getReview(ctx.db, request.principal, request.params.id));
}
