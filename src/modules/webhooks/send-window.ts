// Each test ping and re-send is a signed POST to someone's server: a few a minute per endpoint
// (WEBHOOK_TEST_LIMIT, one window for both), counted only for endpoints of the account (made-up
// ids answer 404 without filling the window store). One window whether asked through the public
// API or the dashboard. Past it, a re-send and the dashboard's test answer 429; the public API's
// POST /webhooks/{id}/test, whose contract answers only 200 or 404, answers 200 with the latest ping
// instead of queueing another, so no key can make Repute flood a server with pings either way.
import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { countHit, enforceWindow, type RateLimitStore } from '../../http/rate-limit.ts';
import type { WebhookDelivery } from './schemas.ts';
import { latestPing, ownEndpoint, queuePing } from './service.ts';

export interface SendWindowContext {
  db: Kysely<DB>;
  rateLimits: RateLimitStore;
  config: Pick<Config, 'webhookTestLimit'>;
}

/** Counts one test ping or re-send of the endpoint; past the limit, throws 429 with Retry-After. Answers the endpoint's id. */
export async function countSend(ctx: SendWindowContext, principal: Principal, endpointId: string, reply: FastifyReply): Promise<string> {
  const endpoint = await ownEndpoint(ctx.db, principal, endpointId);
  const hit = await countHit(ctx.rateLimits, `webhook-test:${endpoint.id}`, ctx.config.webhookTestLimit, 60);
  enforceWindow(reply, hit, ctx.config.webhookTestLimit, 60, 'test pings and re-sends of this endpoint');
  return endpoint.id;
}

/**
 * POST /webhooks/{id}/test: a new ping within the endpoint's window; past it, the latest ping again
 * (a new one only if the window was filled by re-sends and the endpoint has none).
 */
export async function pingWithin(ctx: SendWindowContext, principal: Principal, endpointId: string, reply: FastifyReply): Promise<WebhookDelivery> {
  const endpoint = await ownEndpoint(ctx.db, principal, endpointId);
  const hit = await countHit(ctx.rateLimits, `webhook-test:${endpoint.id}`, ctx.config.webhookTestLimit, 60);
  reply.headers(hit.headers);
  return (hit.over ? await latestPing(ctx.db, endpoint.id) : null) ?? queuePing(ctx.db, principal, endpoint.id);
}
