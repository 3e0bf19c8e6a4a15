// The worker's slot arithmetic (src/delivery/slots.ts): how much a claim may take, in all and per
// endpoint, from what the worker holds and what the breaker allows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AHEAD, aheadFor, claimLimit, claimPerEndpoint, claimRoom, claimsWereFull, lineRunningLow } from '../../src/delivery/slots.ts';

const PER_ENDPOINT = 16;

test('a claim takes up to AHEAD times the concurrency, less what the worker holds', () => {
  assert.equal(AHEAD, 24);
  assert.equal(claimLimit(64, 0), 1536);
  assert.equal(claimLimit(64, 1500), 36);
  assert.equal(claimLimit(64, 1536), 0);
  assert.ok(claimLimit(64, 1600) < 0, 'holding more than that (after a shrink): claim nothing');
  assert.equal(claimPerEndpoint(PER_ENDPOINT), 384);
});

test('an idle worker with a closed breaker gives every endpoint the default room', () => {
  assert.deepEqual(claimRoom(PER_ENDPOINT, new Map(), new Map()), { room: new Map(), excluded: [] });
});

test('what an endpoint has in hand (in flight and waiting) comes off its room; none left excludes it', () => {
  const { room, excluded } = claimRoom(PER_ENDPOINT, new Map(), new Map([['a', 10], ['b', 384], ['c', 400]]));
  assert.deepEqual(room, new Map([['a', 374]]));
  assert.deepEqual(excluded, ['b', 'c']);
});

test('the breaker\'s allowance replaces the cap: open (0) excludes, probing (1) gives AHEAD, less what is in hand', () => {
  const limited = new Map([['open', 0], ['probe', 1], ['probe-busy', 1]]);
  const { room, excluded } = claimRoom(PER_ENDPOINT, limited, new Map([['probe-busy', 2], ['x', 1]]));
  assert.deepEqual(room, new Map([['probe', 24], ['probe-busy', 22], ['x', 383]]));
  assert.deepEqual(excluded, ['open']);
});

test('an endpoint is claimed as many waves ahead as its attempts fit in one time-out, between 1 and AHEAD', () => {
  assert.equal(aheadFor(0, 15_000), AHEAD, 'an answer within the millisecond');
  assert.equal(aheadFor(5, 15_000), AHEAD);
  assert.equal(aheadFor(1000, 15_000), 15);
  assert.equal(aheadFor(5000, 15_000), 3);
  assert.equal(aheadFor(15_000, 15_000), 1, 'attempts that take the whole time-out');
  assert.equal(aheadFor(60_000, 15_000), 1);
});

test('a slow endpoint\'s room is its waves times its allowance, less what is in hand; with the breaker\'s allowance too', () => {
  const paced = new Map([['slow', 3], ['slower', 1], ['slow-probing', 2]]);
  const { room, excluded } = claimRoom(PER_ENDPOINT, new Map([['slow-probing', 1]]), new Map([['slow', 20], ['slower', 16], ['fast', 4]]), paced);
  assert.deepEqual(room, new Map([['slow-probing', 2], ['slow', 28], ['fast', 380]]));
  assert.deepEqual(excluded, ['slower']);
});

test('a line running low (under half of the waiting room) triggers the next claim', () => {
  // (AHEAD - 1) × 16 / 2 = 184
  assert.equal(lineRunningLow(183, PER_ENDPOINT), true);
  assert.equal(lineRunningLow(184, PER_ENDPOINT), false);
  assert.equal(lineRunningLow(0, 1), true);
  // A slow endpoint: (3 - 1) × 16 / 2 = 16; one wave ahead, only an empty line.
  assert.equal(lineRunningLow(15, PER_ENDPOINT, 3), true);
  assert.equal(lineRunningLow(16, PER_ENDPOINT, 3), false);
  assert.equal(lineRunningLow(0, PER_ENDPOINT, 1), true);
  assert.equal(lineRunningLow(1, PER_ENDPOINT, 1), false);
});

test('claims count as full within two endpoints\' allowance of the limit, so a write of results wakes them', () => {
  // 24 × 64 − 2 × 16 = 1504
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 1504), false);
  assert.equal(claimsWereFull(64, PER_ENDPOINT, 1505), true);
});
