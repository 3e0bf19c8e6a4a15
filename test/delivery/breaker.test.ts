// The per-endpoint circuit breaker (src/delivery/breaker.ts): a pure state machine driven by results
// and an explicit clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBreaker, DEFAULT_BREAKER } from '../../src/delivery/breaker.ts';

const options = { threshold: 3, firstCooldownMs: 1000, maxCooldownMs: 4000 };
const CAP = 16;

test('an endpoint keeps its full allowance until THRESHOLD failures in a row, then gets none for the cool-down', () => {
  const breaker = createBreaker(options);
  assert.equal(breaker.allowance('a', CAP, 0), CAP);
  breaker.result('a', false, 0);
  breaker.result('a', false, 0);
  assert.equal(breaker.allowance('a', CAP, 0), CAP, 'two failures: still closed');
  breaker.result('a', false, 100);
  assert.equal(breaker.allowance('a', CAP, 100), 0, 'open');
  assert.equal(breaker.allowance('a', CAP, 1099), 0);
  assert.equal(breaker.allowance('a', CAP, 1100), 1, 'one probe at a time once the cool-down is over');
  assert.equal(breaker.allowance('b', CAP, 100), CAP, 'other endpoints are not affected');
});

test('a success closes the breaker; the failures must start again from zero', () => {
  const breaker = createBreaker(options);
  for (let i = 0; i < 3; i++) breaker.result('a', false, 0);
  breaker.result('a', true, 2000);
  assert.equal(breaker.allowance('a', CAP, 2000), CAP);
  breaker.result('a', false, 2000);
  breaker.result('a', false, 2000);
  assert.equal(breaker.allowance('a', CAP, 2000), CAP);
  assert.equal(breaker.nextProbeAt(2000), null);
});

test('each failed probe doubles the cool-down up to the maximum', () => {
  const breaker = createBreaker(options);
  for (let i = 0; i < 3; i++) breaker.result('a', false, 0);
  assert.equal(breaker.nextProbeAt(0), 1000);
  breaker.result('a', false, 1000); // the probe fails
  assert.equal(breaker.nextProbeAt(1000), 3000);
  breaker.result('a', false, 3000);
  assert.equal(breaker.nextProbeAt(3000), 7000);
  breaker.result('a', false, 7000);
  assert.equal(breaker.nextProbeAt(7000), 11_000, 'capped at maxCooldownMs (4 s)');
});

test('results of attempts already in flight when it opened do not lengthen the cool-down', () => {
  const breaker = createBreaker(options);
  for (let i = 0; i < 3; i++) breaker.result('a', false, 0);
  breaker.result('a', false, 500);
  breaker.result('a', false, 900);
  assert.equal(breaker.nextProbeAt(900), 1000);
  assert.equal(breaker.allowance('a', CAP, 1000), 1);
});

test('limited() lists only endpoints below the normal cap; nextProbeAt() the earliest open one', () => {
  const breaker = createBreaker(options);
  for (let i = 0; i < 3; i++) breaker.result('a', false, 0);
  for (let i = 0; i < 3; i++) breaker.result('b', false, 500);
  breaker.result('c', false, 0); // one failure: not limited
  assert.deepEqual(breaker.limited(CAP, 600), new Map([['a', 0], ['b', 0]]));
  assert.deepEqual(breaker.limited(CAP, 1200), new Map([['a', 1], ['b', 0]]));
  assert.equal(breaker.nextProbeAt(600), 1000);
  assert.equal(breaker.nextProbeAt(1200), 1500, 'a is probing already: b is next');
  assert.equal(breaker.nextProbeAt(2000), null);
});

test('the defaults: 10 failures, 1 s doubling to 60 s', () => {
  assert.deepEqual(DEFAULT_BREAKER, { threshold: 10, firstCooldownMs: 1000, maxCooldownMs: 60_000 });
  const breaker = createBreaker();
  for (let i = 0; i < 9; i++) breaker.result('a', false, 0);
  assert.equal(breaker.allowance('a', CAP, 0), CAP);
  breaker.result('a', false, 0);
  assert.equal(breaker.allowance('a', CAP, 0), 0);
});
