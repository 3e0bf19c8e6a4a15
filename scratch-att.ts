import { attempter } from './src/delivery/attempt.ts';
import { newSecret, webhookHeaders, secretKey } from './src/delivery/signer.ts';
import { seal } from './src/lib/secret-box.ts';
import { newId } from './src/lib/ids.ts';
import { loadConfig } from './src/config.ts';
import { SECRET_KEY } from './test/support/app.ts';
const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', REPUTE_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent' });
const outcome = { statusCode: 200, durationMs: 1, error: null, responseBody: 'ok', retryAfterS: null };
const sender = { send: async () => outcome, close: async () => {} };
const att = attempter(config, sender as never);
const eid = newId(); const secret = newSecret();
const d = { id: newId(), endpointId: eid, eventId: newId(), eventType: 'review.received', attemptCount: 0, payload: 'x'.repeat(700), url: 'http://x/ok', secretEnc: seal(Buffer.from(SECRET_KEY, 'base64'), secret, eid), previousSecretEnc: null, previousSecretUntil: null, manual: false, owner: 'o', leaseUntil: Date.now() + 1e6 };
const N = 200000;
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  for (let i = 0; i < N; i++) await att(d as never);
  console.log('attempt', ((performance.now() - t) / N * 1000).toFixed(2), 'µs');
  const key = secretKey(secret);
  t = performance.now();
  for (let i = 0; i < N; i++) webhookHeaders(key, d.eventId, d.payload);
  console.log('headers', ((performance.now() - t) / N * 1000).toFixed(2), 'µs');
  t = performance.now();
  for (let i = 0; i < N; i++) newId();
  console.log('newId', ((performance.now() - t) / N * 1000).toFixed(2), 'µs');
  t = performance.now();
  for (let i = 0; i < N; i++) new Date().toISOString();
  console.log('date iso', ((performance.now() - t) / N * 1000).toFixed(2), 'µs');
}
