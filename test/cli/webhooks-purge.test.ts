// `repute webhooks purge` as a real child process: the retention pass now, WEBHOOK_RETENTION_DAYS
// by default or --older-than-days, its counts printed as JSON, and usage errors naming the option.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { deliveries, WEBHOOK_ENV } from '../webhooks/helpers.ts';
import { history } from '../webhooks/history.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from './run.ts';

eachDatabase('CLI webhooks purge deletes the history older than the retention and prints what it deleted', async (t) => {
  const h = await history(t);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const listed = async () => (await deliveries(t, h.key, h.endpoint.id)).map((d) => d.id).sort();

  const off = await repute(['webhooks', 'purge'], { ...env, WEBHOOK_RETENTION_DAYS: '0' });
  assert.equal(off.code, 2, off.stderr);
  assert.match(off.stderr, /WEBHOOK_RETENTION_DAYS is 0.*--older-than-days/);
  const bad = await repute(['webhooks', 'purge', '--older-than-days', 'a week'], env);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--older-than-days.*whole number of days/);
  assert.equal((await listed()).length, 4);

  // The default retention, 30 days: the finished deliveries of 40 days ago and three events go.
  const first = await reputeJson(['webhooks', 'purge'], env);
  assert.deepEqual({ ...first, older_than: undefined }, { older_than: undefined, deliveries: 2, events: 3 });
  assert.ok(Math.abs(Date.parse(first.older_than) - (Date.now() - 30 * 86_400_000)) < 60_000, first.older_than);
  assert.deepEqual(await listed(), [h.recentDelivered.id, h.pending.id].sort());

  // One day: the delivery finished two days ago goes too; the paused endpoint's pending one stays.
  assert.deepEqual((await reputeJson(['webhooks', 'purge', '--older-than-days', '1'], env)).deliveries, 1);
  assert.deepEqual(await listed(), [h.pending.id]);
}, { env: WEBHOOK_ENV });
