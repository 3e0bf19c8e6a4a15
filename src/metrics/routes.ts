// GET /metrics: the Prometheus text format, behind METRICS_TOKEN (no such route when it is not set). The
// queue gauges are read from the database at each scrape, so they hold for the whole instance (every
// server and worker); the process metrics (CPU, memory, event-loop delay, GC) are this process's.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AuthThrottle } from '../http/auth-throttle.ts';
import { tokenGuard } from '../http/token-guard.ts';
import { readBacklog } from './backlog.ts';

export async function metricsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (ctx.config.metricsToken === null) return;
  const failures = new AuthThrottle(ctx.rateLimits, 'metrics', ctx.config.authFailureLimit, ctx.config.authFailureWindowS);
  // Loaded only when the route is on: prom-client takes about 0.1 s to load, and its default
  // metrics start an event-loop monitor.
  const gauges = makeGauges(await import('prom-client'));
  app.get('/metrics', { onRequest: tokenGuard(ctx.config.metricsToken, 'METRICS_TOKEN', failures), schema: { hide: true } }, async (_request, reply) => {
    const now = Date.now();
    const backlog = await readBacklog(ctx.db, new Date(now).toISOString());
    const ageS = (since: string | null) => (since === null ? 0 : Math.max(0, (now - Date.parse(since)) / 1000));
    gauges.deliveriesPending.set(backlog.deliveriesPending);
    gauges.deliveryDelay.set(ageS(backlog.deliveriesOldestDue));
    for (const [state, n] of Object.entries(backlog.endpoints)) gauges.endpoints.set({ state }, n);
    for (const [status, n] of Object.entries(backlog.invitations)) gauges.invitations.set({ status }, n);
    gauges.invitationDelay.set(ageS(backlog.invitationsOldestDue));
    gauges.extractionQueued.set(backlog.extractionQueued);
    gauges.extractionAge.set(ageS(backlog.extractionOldest));
    return reply.type(gauges.registry.contentType).send(await gauges.registry.metrics());
  });
}

function makeGauges({ Registry, Gauge, collectDefaultMetrics }: typeof import('prom-client')) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gauge = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    deliveriesPending: gauge('repute_webhook_deliveries_pending', 'Webhook deliveries not yet delivered or failed for good (due, in flight, or waiting for a retry).'),
    deliveryDelay: gauge('repute_webhook_delivery_delay_seconds', 'How long the longest-waiting due delivery to an active endpoint has waited past its due time (0: none is due).'),
    endpoints: gauge('repute_webhook_endpoints', 'Webhook endpoints by state: active, paused (by a person), disabled (by Repute: failing for too long, or 410 Gone).', ['state']),
    invitations: gauge('repute_survey_invitations', 'Survey invitations by status: scheduled (waiting for their send time), sending (claimed by a worker), failed (given up).', ['status']),
    invitationDelay: gauge('repute_survey_invitation_delay_seconds', 'How long the longest-waiting scheduled invitation has waited past its send time (0: none is due).'),
    extractionQueued: gauge('repute_extraction_queue_reviews', 'Reviews waiting for the insights engine to extract their mentions.'),
    extractionAge: gauge('repute_extraction_queue_age_seconds', 'How long the review waiting longest for extraction has waited (0: the queue is empty).'),
  };
}
