// isoAt is the stored form of an instant, exactly as toISOString writes it: the worker stamps every
// attempt with it, and text order must stay time order in both databases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoAt, nowIso } from '../../src/lib/time.ts';

test('isoAt writes what toISOString writes, across seconds, minutes, days and years', () => {
  const edges = [0, 999, 1000, 59_999, 60_000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2028, 1, 29, 12, 0, 0, 7),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
  let seed = 1;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  const samples = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor(random() * Date.UTC(2100, 0, 1)))];
  // In order and out of order, so the cached minute is both reused and replaced.
  for (const ms of [...samples, ...samples.slice().sort((a, b) => a - b)]) assert.equal(isoAt(ms), new Date(ms).toISOString(), `at ${ms}`);
});

test('isoAt drops a fractional millisecond, as Date does (a retry schedule may give fractional seconds)', () => {
  for (const ms of [1_764_266_400_012.3, 1_764_266_400_012.999, 59_999.5]) assert.equal(isoAt(ms), new Date(ms).toISOString());
});

test('nowIso is the present in the stored form', () => {
  const before = Date.now();
  const now = Date.parse(nowIso());
  assert.ok(now >= before && now <= Date.now());
  assert.match(nowIso(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});
