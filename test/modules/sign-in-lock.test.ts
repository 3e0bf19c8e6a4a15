// The sign-in lock (src/modules/users/sign-in.ts): failures count in a sliding window, so tries on
// both sides of a clock's quarter hour count together, and a lock lasts a whole window from the first
// refused try; the sliding logs and the holds work alike in memory and in Redis.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { memoryStore, type RateLimitStore, redisStore } from '../../src/http/rate-limit.ts';
import { LoginThrottle } from '../../src/modules/users/sign-in.ts';

const REDIS_URL = process.env.REDIS_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stores: Array<[string, () => RateLimitStore]> = [
  ['memory', memoryStore],
  ...(REDIS_URL ? [['redis', () => redisStore(REDIS_URL, { prefix: `test:${randomUUID()}:` })] as [string, () => RateLimitStore]] : []),
];

for (const [name, make] of stores) {
  test(`a hold lasts its time and is then gone [${name}]`, async () => {
    const store = make();
    try {
      await store.connected();
      assert.equal(await store.heldMs('k'), 0);
      await store.hold('k', 5000);
      const left = await store.heldMs('k');
      assert.ok(left > 3000 && left <= 5000, `${left} ms left`);
      await store.hold('short', 50);
      await sleep(120);
      assert.equal(await store.heldMs('short'), 0);
    } finally {
      await store.close();
    }
  });

  test(`a sliding log counts the tries of the last window, whatever the clock, and forgets one taken back [${name}]`, async () => {
    const store = make();
    try {
      await store.connected();
      const windowMs = 1000;
      // Two tries in the last 300 ms of a clock-aligned second, one just after it: all three count.
      while (Date.now() % windowMs < windowMs - 300) await sleep(10);
      assert.equal(await store.record('k', 'a', windowMs), 1);
      assert.equal(await store.record('k', 'b', windowMs), 2);
      const second = Math.floor(Date.now() / windowMs);
      while (Math.floor(Date.now() / windowMs) === second) await sleep(10);
      assert.equal(await store.record('k', 'c', windowMs), 3, 'the clock\'s second ended; the window did not');
      await store.forget('k', 'b');
      assert.equal(await store.record('k', 'd', windowMs), 3, 'b is forgotten');
      await sleep(windowMs + 100);
      assert.equal(await store.record('k', 'e', windowMs), 1, 'the older tries left the window');
    } finally {
      await store.close();
    }
  });

  test(`failures on both sides of a clock-aligned boundary count together: the limit holds within any window [${name}]`, async () => {
    const store = make();
    const windowS = 4;
    const throttle = new LoginThrottle(store, { loginEmailFailureLimit: 3, loginAddressFailureLimit: 1000, loginFailureWindowS: windowS });
    try {
      await store.connected();
      while (Date.now() % (windowS * 1000) < windowS * 1000 - 400) await sleep(20);
      for (let i = 0; i < 2; i++) assert.equal(await throttle.begin('edge@example.com', '10.0.0.2', randomUUID()), 0);
      const before = Math.floor(Date.now() / (windowS * 1000));
      while (Math.floor(Date.now() / (windowS * 1000)) === before) await sleep(20);
      assert.equal(await throttle.begin('edge@example.com', '10.0.0.2', randomUUID()), 0, 'the third is let through');
      assert.equal(await throttle.begin('edge@example.com', '10.0.0.2', randomUUID()), windowS, 'the fourth within the window is refused');
    } finally {
      await store.close();
    }
  });

  test(`an e-mail locked just before its counting window ends stays locked a whole window [${name}]`, async () => {
    const store = make();
    const windowS = 4;
    const throttle = new LoginThrottle(store, { loginEmailFailureLimit: 3, loginAddressFailureLimit: 1000, loginFailureWindowS: windowS });
    try {
      await store.connected();
      // Into the last half second of a clock-aligned window.
      while (Date.now() % (windowS * 1000) < windowS * 1000 - 500) await sleep(20);
      for (let i = 0; i < 3; i++) assert.equal(await throttle.begin('gm@example.com', '10.0.0.1', randomUUID()), 0, `try ${i + 1} is let through`);
      const refusedAt = Date.now();
      assert.equal(await throttle.begin('gm@example.com', '10.0.0.1', randomUUID()), windowS, 'the fourth is refused for a whole window');
      // Past the clock's window: a fixed window would have let the e-mail try again here.
      while (Math.floor(Date.now() / (windowS * 1000)) === Math.floor(refusedAt / (windowS * 1000))) await sleep(20);
      const wait = await throttle.begin('gm@example.com', '10.0.0.1', randomUUID());
      assert.ok(wait >= 1 && wait <= windowS, `still locked in the next window (${wait} s to wait)`);
      assert.equal(await throttle.begin('other@example.com', '10.0.0.1', randomUUID()), 0, 'another e-mail is not');
    } finally {
      await store.close();
    }
  });
}
