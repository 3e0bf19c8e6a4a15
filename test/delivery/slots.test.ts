// The worker's slot arithmetic (src/delivery/slots.ts): how much a claim may take, in all and per
// endpoint, from what the worker holds and what the breaker allows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AHEAD, claimLimit, claimPerEndpoint, claimRoom, claimsWereFull, lineRunningLow } from '../../src/delivery/slots.ts';

const PER_ENDPOINT = 16;

test('a claim takes up to AHEAD times the concurrency, less what the worker holds', () => {
  assert.equal(AHEAD, 6);
  assert.equal(claimLimit(64, 0), 384);
  assert.equal(claimLimit(64, 300), 84);
  assert.equal(claimLimit(64, 384), 0);
  assert.ok(claimLimit(64, 400) < 0, 'holding more than that (after a shrink): claim nothing');
  assert.equal(claimPerEndpoint(PER_ENDPOINT), 96);
});

test('an idle worker with a closed breaker gives every endpoint the default room', () => {
  assert.deepEqual(claimRoom(PER_ENDPOINT, new Map(), new Map()), { room: new Map(), excluded: [] });
});

test('what an endpoint has in hand (in flight and waiting) comes off its room; none left excludes it', () => {
  const { room, excluded } = claimRoom(PER_ENDPOINT, new Map(), new Map([['a', 10], ['b', 96], ['c', 100]]));
  assert.deepEqual(room, new Map([['a', 86]]));
  assert.deepEqual(excluded, ['b', 'c']);
});

test('the breaker\'s allowance replaces the cap: open (0) excludes, probing (1) gives AHEAD, less what is in hand', () => {
  const limited = new Map([['open', 0], ['probe', 1], ['probe-busy', 1]]);
  const { room, excluded } = claimRoom(PER_ENDPOINT, limited, new Map([['probe-busy', 2], ['x', 1]]));
  assert.deepEqual(room, new Map([['probe', 6], ['probe-busy', 4], ['x', 95]]));
  assert.deepEqual(excluded, ['open']);
});

test('a line running low (under half of the waiting room) triggers the next claim', () => {
  // (AHEAD - 1) × 16 / 2 = 40
  assert.equal(lineRunningLow(39, PER_ENDPOINT), true);
  assert.equal(lineRunningLow(40, PER_ENDPOINT), false);
  assert.equal(lineRunningLow(0, 1), true);
});

test('claims count as full within two endpoints\' allowance of the limit, so a write of results wakes them', () => {
  // 6 × 64 − 2 × 16 = 352
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 352), false);
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 353), true);
});
