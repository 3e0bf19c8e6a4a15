// The retry schedule (src/delivery/schedule.ts): what follows an attempt, as a pure function of the
// schedule, the attempt count, the answer, the clock and the jitter's random draw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSuccess, nextStep } from '../../src/delivery/schedule.ts';

const now = new Date('2026-01-01T00:00:00.000Z');
const delay = (step: ReturnType<typeof nextStep>) => (step.nextAttemptAt.getTime() - now.getTime()) / 1000;
const answer = (statusCode: number | null, retryAfterS: number | null = null) => ({ statusCode, retryAfterS });

test('only 2xx answers count as delivered', () => {
  assert.deepEqual([null, 100, 199, 200, 204, 299, 300, 404, 410, 500].map(isSuccess),
    [false, false, false, true, true, true, false, false, false, false]);
});

test('retry delays follow the schedule, never shorter, with up to 20% jitter; after the last entry the delivery fails', () => {
  const schedule = [0, 10, 100];
  const delivered = nextStep(schedule, 1, answer(204), now);
  assert.deepEqual(delivered, { status: 'delivered', nextAttemptAt: now });
  // Entry n is the delay before attempt n + 1: after attempt 1 comes schedule[1].
  assert.equal(delay(nextStep(schedule, 1, answer(500), now, () => 0)), 10);
  assert.equal(delay(nextStep(schedule, 1, answer(500), now, () => 0.5)), 11);
  assert.equal(delay(nextStep(schedule, 1, answer(500), now, () => 1)), 12);
  assert.equal(delay(nextStep(schedule, 2, answer(null), now, () => 0)), 100);
  assert.equal(nextStep(schedule, 2, answer(500), now).status, 'pending');
  assert.deepEqual(nextStep(schedule, 3, answer(500), now), { status: 'failed', nextAttemptAt: now });
  assert.equal(nextStep(schedule, 9, answer(500), now).status, 'failed');
  // Milliseconds are rounded, never fractional.
  assert.equal(nextStep([0, 0.0123], 1, answer(500), now, () => 0).nextAttemptAt.getTime() - now.getTime(), 12);
});

test('Retry-After lengthens a delay, never shortens it, and is capped at an hour or the schedule\'s longest delay', () => {
  const schedule = [0, 10, 100];
  assert.equal(delay(nextStep(schedule, 1, answer(429, 60), now, () => 0.5)), 60);
  assert.equal(delay(nextStep(schedule, 1, answer(503, 1), now, () => 0)), 10);
  assert.equal(delay(nextStep(schedule, 1, answer(503, 1e9), now, () => 0.5)), 3600);
  // A schedule whose longest delay exceeds an hour caps Retry-After there instead.
  assert.equal(delay(nextStep([0, 10, 7200], 1, answer(503, 1e9), now, () => 0.5)), 7200);
  // A delivered answer ignores Retry-After; a final failure too.
  assert.equal(nextStep(schedule, 1, answer(200, 60), now).status, 'delivered');
  assert.deepEqual(nextStep(schedule, 3, answer(429, 60), now), { status: 'failed', nextAttemptAt: now });
});
