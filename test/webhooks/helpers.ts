// Shared pieces of the webhook tests: the environment (fast retries, loopback receiver allowed),
// an in-process worker on the test app's database, endpoint creation and Standard Webhooks checks.
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../support/app.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { type DeliveryWorker, startWorker, type WorkerOptions } from '../../src/delivery/worker.ts';

export const EVENTS = [
  'review.received', 'review.replied', 'review.alert_triggered', 'survey.response_completed', 'guest.created', 'guest.unsubscribed',
];

/** Fast retries, a short poll and time-out, and 127.0.0.1 (only) admitted as a receiver. */
export const WEBHOOK_ENV = {
  WEBHOOK_RETRY_SCHEDULE_S: '0,0.05,0.1',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
};

export function worker(t: TestApp, options: WorkerOptions = {}): DeliveryWorker {
  return startWorker({ store: t.ctx.stores.deliveries, commits: t.testDb.database.commits, config: t.config, log: t.ctx.log }, options);
}

export interface CreatedEndpoint {
  secret: string;
  endpoint: { id: string; name: string; url: string; events: string[]; is_active: boolean; created_at: string; updated_at: string };
}

export async function createEndpoint(t: TestApp, key: string, url: string, events: string[] = EVENTS, name = 'Ops'): Promise<CreatedEndpoint> {
  const r = await t.api(key, 'POST', '/webhooks', { name, url, events });
  assert.equal(r.statusCode, 201, r.body);
  return r.json();
}

/** Verifies a received request exactly as a receiver would, with the standardwebhooks library. */
export function verified(secret: string, request: ReceivedRequest): any {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  const payload = new Webhook(secret).verify(request.body, headers);
  assert.equal(request.headers['x-svc-signature'], request.headers['webhook-signature']);
  return payload;
}

export async function until<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'a condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The deliveries of an endpoint as GET /webhooks/{id}/deliveries shows them. */
export async function deliveries(t: TestApp, key: string, endpointId: string): Promise<any[]> {
  const r = await t.api(key, 'GET', `/webhooks/${endpointId}/deliveries`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json().data;
}
