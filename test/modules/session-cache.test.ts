// The rules by which a server keeps dashboard sessions in memory (src/modules/users/session-changes.ts),
// with the database's change stamp played by a number the test sets: what the pages rely on to
// refuse an ended session at once (dashboard-auth.test.ts drives the same through real databases).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionLookup } from '../../src/modules/users/repository.ts';
import { KEEP_MS, SessionCache } from '../../src/modules/users/session-changes.ts';

const lookup = (email: string) => ({ email }) as SessionLookup;
const silent = { info() {}, warn() {} };

function cacheWithStamp() {
  const changes = { stamp: 1 as number | null, opened: 0, now: 1_000_000 };
  const cache = new SessionCache(() => {
    changes.opened += 1;
    return { current: () => changes.stamp, stop: async () => {} };
  }, () => changes.now);
  return { cache, changes };
}

test('nothing is kept before start, and the change stamp opens on first use only', () => {
  const { cache, changes } = cacheWithStamp();
  cache.set('a', lookup('a@example.com'), cache.ticket());
  assert.equal(cache.get('a'), undefined);
  assert.equal(changes.opened, 0);
  cache.start(silent);
  assert.equal(changes.opened, 0);
  cache.set('a', lookup('a@example.com'), cache.ticket());
  assert.equal(cache.get('a')?.email, 'a@example.com');
  assert.equal(changes.opened, 1);
});

test('a change signalled by the database drops every kept session', () => {
  const { cache, changes } = cacheWithStamp();
  cache.start(silent);
  cache.set('a', lookup('a@example.com'), cache.ticket());
  changes.stamp = 2;
  assert.equal(cache.get('a'), undefined);
  // A session read under the new stamp is kept again.
  cache.set('a', lookup('a@example.com'), cache.ticket());
  assert.equal(cache.get('a')?.email, 'a@example.com');
});

test('a read that began before a change or a local clear is not kept', () => {
  const { cache, changes } = cacheWithStamp();
  cache.start(silent);
  const before = cache.ticket();
  changes.stamp = 2; // the session ended while its row was being read
  cache.set('a', lookup('a@example.com'), before);
  assert.equal(cache.get('a'), undefined);

  const beforeClear = cache.ticket();
  cache.clear(); // a sign-out through this instance
  cache.set('b', lookup('b@example.com'), beforeClear);
  assert.equal(cache.get('b'), undefined);
});

test('while the stamp is unknown (PostgreSQL not listening) nothing is kept', () => {
  const { cache, changes } = cacheWithStamp();
  cache.start(silent);
  cache.set('a', lookup('a@example.com'), cache.ticket());
  changes.stamp = null;
  assert.equal(cache.get('a'), undefined);
  cache.set('a', lookup('a@example.com'), cache.ticket());
  assert.equal(cache.get('a'), undefined);
});

test('a kept session is read again after KEEP_MS even without a signal (a pooler may swallow notifications)', () => {
  const { cache, changes } = cacheWithStamp();
  cache.start(silent);
  cache.set('a', lookup('a@example.com'), cache.ticket());
  changes.now += KEEP_MS - 1;
  assert.equal(cache.get('a')?.email, 'a@example.com');
  changes.now += 1;
  assert.equal(cache.get('a'), undefined);
});
