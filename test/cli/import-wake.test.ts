// PostgreSQL: `repute import` wakes a separate `repute worker` (NOTIFY as it commits events), so
// imported events go out at once instead of at the worker's next poll.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, dialects } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, until } from '../webhooks/helpers.ts';
import { ndjson, tempFile } from './import-files.ts';
import { cliDatabaseUrl, cliEnv, repute, startCli } from './run.ts';

if (dialects.includes('postgres')) {
  test('a `repute worker` with a 60 s poll delivers what `repute import` wrote within seconds [postgres]', { timeout: 120_000 }, async () => {
    const t = await createTestApp('postgres');
    const receiver = await startReceiver();
    const env = cliEnv(cliDatabaseUrl(t.testDb), { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_POLL_MS: '60000', LOG_LEVEL: 'info' });
    const worker = startCli(['worker'], env);
    let log = '';
    worker.stdout!.on('data', (c) => { log += c; });
    worker.stderr!.on('data', (c) => { log += c; });
    const tree = await createTree(t);
    const file = tempFile(ndjson([0, 1, 2].map((i) => ({
      type: 'review', account_id: tree.accountId, node_id: tree.properties[i], platform: 'google', external_id: `w-${i}`, reviewed_at: '2026-05-01T10:00:00Z', rating: 5,
    }))));
    try {
      const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
      await createEndpoint(t, key, receiver.url, ['review.received']);
      // Listening means its first poll is done: from here on only a NOTIFY brings the next one within 60 s.
      await until(async () => log.includes('listening for committed events'), 60_000, 'the worker to listen');
      const started = performance.now();
      const r = await repute(['import', file.path], env);
      assert.equal(r.code, 0, r.stderr);
      await receiver.waitFor((requests) => requests.length === 3, 15_000, 'the three review.received deliveries');
      const latency = Math.max(...receiver.requests.map((q) => q.at)) - started;
      assert.ok(latency < 15_000, `arrived ${Math.round(latency)} ms after the import started, with a 60 s poll`);
    } finally {
      worker.kill('SIGKILL');
      file.remove();
      await receiver.close();
      await t.close();
    }
  });
}
