// Public v4 routes of insights: recommendations (account-wide), mentions (subtree) and topics.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../http/route-context.ts';
import { asBuilt } from '../../http/as-built.ts';
import { requireKey } from '../../http/auth.ts';
import { cursorsFor, listUrl, pageOf } from '../../http/pagination.ts';
import { List, Page, PageQuery, errorResponses } from '../../http/schemas.ts';
import { Mention, MentionListQuery, Recommendation, Topic } from './schemas.ts';
import { listMentions, listRecommendations, listTopics } from './service.ts';

export function insightRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const cursors = cursorsFor(ctx.config.secretKey);
  const onRequest = requireKey(ctx, 'insights:read', 'insights');

  const recommendationPath = '/insights/recommendations';
  const recommendationList = listUrl(app, recommendationPath);
  r.get(recommendationPath, {
    schema: {
      operationId: 'listRecommendations',
      tags: ['insights'], summary: 'Recommendations for the whole account, newest first',
      querystring: PageQuery, response: { 200: Page(Recommendation), ...errorResponses(400) },
    },
    onRequest,
  }, async (request) =>
    pageOf(cursors, recommendationList, request, request.query, (after, limit) => listRecommendations(ctx.db, request.principal, after, limit)));

  const mentionPath = '/insights/mentions';
  const mentionList = listUrl(app, mentionPath);
  r.get(mentionPath, {
    schema: {
      operationId: 'listMentions',
      tags: ['insights'], summary: 'Topic mentions from reviews of the key\'s subtree, newest first; filters by topic, sentiment, node and time',
      querystring: MentionListQuery, response: { 200: Page(Mention), ...errorResponses(400, 404) },
    },
    onRequest,
  }, async (request, reply) => asBuilt(reply, await pageOf(cursors, mentionList, request, request.query, (after, limit) => listMentions(ctx.db, request.principal, after, limit, request.query))));

  r.get('/insights/topics', {
    schema: { operationId: 'listTopics', tags: ['insights'], summary: 'Topic labels readable by the account: global ones and its own', response: { 200: List(Topic), ...errorResponses() } },
    onRequest,
  }, async (request) => ({ data: await listTopics(ctx.db, request.principal) }));
}
