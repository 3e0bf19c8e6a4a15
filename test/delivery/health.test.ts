// endpointHealth (src/delivery/store.ts): what a batch of attempt results says of each endpoint's
// failure streak, which both stores write (auto-disable). Re-sends (counts: false) say nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AttemptRecord, autoDisableReason, endpointHealth } from '../../src/delivery/store.ts';

const record = (endpointId: string, at: string, error: string | null, counts = true): AttemptRecord => ({
  deliveryId: `d-${at}`, owner: 'o', attemptId: `a-${at}`, attemptedAt: at, statusCode: error ? 500 : 200, durationMs: 1,
  error, responseBody: null, status: error ? 'pending' : 'delivered', nextAttemptAt: at, pauseEndpointId: null, endpointId, counts,
});

test('a streak starts at the first failure after the last success, and a success ends it', () => {
  const health = endpointHealth([
    record('a', 't1', 'HTTP 500'), record('a', 't2', 'HTTP 502'),
    record('b', 't1', 'HTTP 500'), record('b', 't2', null),
    record('c', 't1', null), record('c', 't2', 'timed out'), record('c', 't3', 'HTTP 500'),
    record('d', 't1', 'HTTP 500', false), record('e', 't1', null, false),
  ]);
  assert.deepEqual(health, [
    // No success in the batch: the stored streak (if any) is kept, else it starts at t1.
    { endpointId: 'a', failingSince: 't1', restart: false, lastError: 'HTTP 502' },
    { endpointId: 'b', failingSince: null, restart: true, lastError: null },
    // A success first: the streak restarts at the failure after it, whatever was stored.
    { endpointId: 'c', failingSince: 't2', restart: true, lastError: 'HTTP 500' },
  ]);
});

test('the disabled reason names the span, the setting and the last error', () => {
  assert.equal(autoDisableReason(432000, 'HTTP 500'), 'auto-disabled: every delivery attempt failed for 5 days (WEBHOOK_AUTO_DISABLE_AFTER_S); last error: HTTP 500');
  assert.equal(autoDisableReason(7200, null), 'auto-disabled: every delivery attempt failed for 2 hours (WEBHOOK_AUTO_DISABLE_AFTER_S)');
  assert.equal(autoDisableReason(90, null), 'auto-disabled: every delivery attempt failed for 90 seconds (WEBHOOK_AUTO_DISABLE_AFTER_S)');
  assert.equal(autoDisableReason(86400, null), 'auto-disabled: every delivery attempt failed for 1 day (WEBHOOK_AUTO_DISABLE_AFTER_S)');
});
