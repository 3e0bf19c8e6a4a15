// The worker's slot arithmetic (src/delivery/slots.ts): how much a claim may take, in all and per
// endpoint, from what the worker holds and what the breaker allows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AHEAD, claimLimit, claimPerEndpoint, claimRoom, claimsWereFull, lineRunningLow } from '../../src/delivery/slots.ts';

const PER_ENDPOINT = 16;

test('a claim takes up to AHEAD times the concurrency, less what the worker holds', () => {
  assert.equal(AHEAD, 12);
  assert.equal(claimLimit(64, 0), 768);
  assert.equal(claimLimit(64, 700), 68);
  assert.equal(claimLimit(64, 768), 0);
  assert.ok(claimLimit(64, 800) < 0, 'holding more than that (after a shrink): claim nothing');
  assert.equal(claimPerEndpoint(PER_ENDPOINT), 192);
});

test('an idle worker with a closed breaker gives every endpoint the default room', () => {
  assert.deepEqual(claimRoom(PER_ENDPOINT, new Map(), new Map()), { room: new Map(), excluded: [] });
});

test('what an endpoint has in hand (in flight and waiting) comes off its room; none left excludes it', () => {
  const { room, excluded } = claimRoom(PER_ENDPOINT, new Map(), new Map([['a', 10], ['b', 192], ['c', 200]]));
  assert.deepEqual(room, new Map([['a', 182]]));
  assert.deepEqual(excluded, ['b', 'c']);
});

test('the breaker\'s allowance replaces the cap: open (0) excludes, probing (1) gives AHEAD, less what is in hand', () => {
  const limited = new Map([['open', 0], ['probe', 1], ['probe-busy', 1]]);
  const { room, excluded } = claimRoom(PER_ENDPOINT, limited, new Map([['probe-busy', 2], ['x', 1]]));
  assert.deepEqual(room, new Map([['probe', 12], ['probe-busy', 10], ['x', 191]]));
  assert.deepEqual(excluded, ['open']);
});

test('a line running low (under half of the waiting room) triggers the next claim', () => {
  // (AHEAD - 1) × 16 / 2 = 88
  assert.equal(lineRunningLow(87, PER_ENDPOINT), true);
  assert.equal(lineRunningLow(88, PER_ENDPOINT), false);
  assert.equal(lineRunningLow(0, 1), true);
});

test('claims count as full within two endpoints\' allowance of the limit, so a write of results wakes them', () => {
  // 12 × 64 − 2 × 16 = 736
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 736), false);
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 737), true);
});
