// GET /metrics: the Prometheus text an operator scrapes, behind METRICS_TOKEN; its queue gauges follow
// what is waiting in the database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { newId } from '../../src/lib/ids.ts';
import { createTestApp, dialects, type TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { DEFINITION } from '../support/surveys.ts';
import { createEndpoint } from '../webhooks/helpers.ts';

const METRICS_TOKEN = 'test-metrics-token-0123456789';
const withMetrics = { env: { METRICS_TOKEN } };

const scrape = (t: TestApp, authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });

/** The value of one sample, found by its name and labels as written (`name` or `name{label="x"}`). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line !== undefined, `no sample ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

for (const dialect of dialects) {
  test(`without METRICS_TOKEN there is no /metrics route [${dialect}]`, async () => {
    const t = await createTestApp(dialect);
    try {
      const r = await scrape(t, `Bearer ${METRICS_TOKEN}`);
      assert.equal(r.statusCode, 404, r.body);
    } finally {
      await t.close();
    }
  });
}

eachDatabase('GET /metrics answers only METRICS_TOKEN, with 401 naming the setting otherwise', async (t) => {
  const none = await scrape(t);
  assert.equal(none.statusCode, 401);
  assert.deepEqual(none.json(), { error: 'Authorization header must be "Bearer <METRICS_TOKEN>"', code: 'unauthorized' });
  const wrong = await scrape(t, 'Bearer not-the-metrics-token-at-all');
  assert.equal(wrong.statusCode, 401);
  assert.match(wrong.json().error, /not this server's METRICS_TOKEN/);
  // The admin token opens the operator plane, not the metrics.
  const admin = await scrape(t, 'Bearer test-admin-token');
  assert.equal(admin.statusCode, 401);
  const right = await scrape(t, `Bearer ${METRICS_TOKEN}`);
  assert.equal(right.statusCode, 200, right.body);
  assert.match(String(right.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  // The process's own metrics, under the names every Node.js dashboard expects.
  assert.ok(sample(right.body, 'process_cpu_user_seconds_total') >= 0);
  assert.ok(sample(right.body, 'nodejs_heap_size_used_bytes') > 0);
  assert.equal(sample(right.body, 'repute_webhook_deliveries_pending'), 0);
  assert.equal(sample(right.body, 'repute_webhook_delivery_delay_seconds'), 0);
  assert.equal(sample(right.body, 'repute_extraction_queue_reviews'), 0);
}, withMetrics);

eachDatabase('the queue gauges count what waits: deliveries and how late, endpoints by state, invitations, extraction', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  // The worker is off in tests: what is queued stays queued.
  const live = (await createEndpoint(t, key, 'https://hooks.example.com/live')).endpoint.id;
  const paused = (await createEndpoint(t, key, 'https://hooks.example.com/paused')).endpoint.id;
  assert.equal((await t.api(key, 'PATCH', `/webhooks/${paused}`, { is_active: false })).statusCode, 200);
  await createReview(t, tree.accountId, tree.properties[0], { text: 'The breakfast was cold.' });
  await createReview(t, tree.accountId, tree.properties[0], { text: 'Lovely staff.' });
  // The deliveries to the live endpoint have waited two hours past their due time; those to the
  // paused one wait by design and do not count as late.
  await t.ctx.db.updateTable('webhook_deliveries').set({ next_attempt_at: hoursAgo(2) }).where('endpoint_id', '=', live).execute();
  await t.ctx.db.updateTable('webhook_deliveries').set({ next_attempt_at: hoursAgo(5) }).where('endpoint_id', '=', paused).execute();
  await t.ctx.db.updateTable('extraction_queue').set({ enqueued_at: hoursAgo(1) }).execute();

  const survey = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.properties[0], name: 'Stay', definition: DEFINITION, status: 'published' });
  assert.equal(survey.statusCode, 201, survey.body);
  const invitation = (status: string, sendAt: string) => ({
    id: newId(), account_id: tree.accountId, survey_id: survey.json().id, rule_id: null, reservation_id: newId(), guest_id: newId(),
    node_id: tree.properties[0], language: 'en', status, survey_token_hash: newId(), unsubscribe_token_hash: newId(), send_at: sendAt,
    attempts: 0, created_at: hoursAgo(4), updated_at: hoursAgo(4),
  });
  await t.ctx.db.insertInto('survey_invitations').values([
    invitation('scheduled', hoursAgo(3)), invitation('scheduled', new Date(Date.now() + 3_600_000).toISOString()),
    invitation('failed', hoursAgo(4)), invitation('sent', hoursAgo(4)),
  ]).execute();

  const text = (await scrape(t, `Bearer ${METRICS_TOKEN}`)).body;
  assert.equal(sample(text, 'repute_webhook_deliveries_pending'), 4);
  assertNear(sample(text, 'repute_webhook_delivery_delay_seconds'), 2 * 3600);
  assert.equal(sample(text, 'repute_webhook_endpoints{state="active"}'), 1);
  assert.equal(sample(text, 'repute_webhook_endpoints{state="paused"}'), 1);
  assert.equal(sample(text, 'repute_webhook_endpoints{state="disabled"}'), 0);
  assert.equal(sample(text, 'repute_survey_invitations{status="scheduled"}'), 2);
  assert.equal(sample(text, 'repute_survey_invitations{status="failed"}'), 1);
  assert.equal(sample(text, 'repute_survey_invitations{status="sending"}'), 0);
  assertNear(sample(text, 'repute_survey_invitation_delay_seconds'), 3 * 3600);
  assert.equal(sample(text, 'repute_extraction_queue_reviews'), 2);
  assertNear(sample(text, 'repute_extraction_queue_age_seconds'), 3600);
}, withMetrics);

test('a METRICS_TOKEN shorter than 16 characters stops start-up, naming it', () => {
  assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), (error: unknown) =>
    error instanceof ConfigError && /METRICS_TOKEN must be at least 16 characters, got 5/.test(error.message));
});

/** Within a minute of the expected number of seconds: the test's own steps take a moment. */
function assertNear(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 60, `${actual} s, expected about ${expected} s`);
}
