// A webhook endpoint that the address guard refuses (e.g. a local receiver in the demo) is named in
// one warning of the server log, whatever the number of attempts, with the address and the setting
// that admits it; every attempt keeps the reason, which the admin API shows.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startWorker } from '../../src/delivery/worker.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, deliveries, sleep, until, WEBHOOK_ENV } from './helpers.ts';

/** A real pino logger whose JSON lines are kept for the test to read. */
function logStream(): { log: pino.Logger; lines: () => any[] } {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines: () => lines };
}

eachDatabase('a refused endpoint is warned about once in the log, naming the address and WEBHOOK_ALLOW_PRIVATE', async (t) => {
  // 127.0.0.1 is admitted (WEBHOOK_ENV); 127.0.0.2 is another loopback address, refused.
  const local = await startReceiver('127.0.0.2');
  const { log, lines } = logStream();
  const w = startWorker({ store: t.ctx.stores.deliveries, commits: t.testDb.database.commits, config: t.config, log });
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const first = await createEndpoint(t, key, `http://user:pw@${local.host}:${local.port}/hook?token=abc`, ['review.received'], 'local');
    const second = await createEndpoint(t, key, `${local.url}/other`, ['review.received'], 'other');
    for (let i = 0; i < 3; i += 1) await createReview(t, tree.accountId, tree.properties[0]);
    // Every delivery runs out of attempts (3 in WEBHOOK_ENV): 9 refused attempts per endpoint.
    for (const endpoint of [first, second]) {
      await until(async () => {
        const list = await deliveries(t, key, endpoint.endpoint.id);
        return list.length === 3 && list.every((d) => d.status === 'failed');
      }, 10_000, 'every delivery failed');
    }
    await sleep(100);
    const warnings = lines().filter((l) => l.level === 40 && l.setting === 'WEBHOOK_ALLOW_PRIVATE');
    assert.deepEqual(warnings.map((l) => l.endpoint).sort(), [first.endpoint.id, second.endpoint.id].sort(), 'one warning per endpoint');
    const warning = warnings.find((l) => l.endpoint === first.endpoint.id)!;
    assert.match(warning.msg, new RegExp(`webhook endpoint ${first.endpoint.id} \\(http://127\\.0\\.0\\.2:${local.port}/hook\\): address refused: 127\\.0\\.0\\.2 is a loopback address \\(WEBHOOK_ALLOW_PRIVATE can admit it`));
    assert.match(warning.msg, /GET \/admin\/v1\/deliveries\/\{id\}/);
    // Neither the receiver's password nor its query token reaches the log.
    assert.doesNotMatch(JSON.stringify(lines()), /pw@|token=abc/);
    // The reason is kept with each attempt, where the warning says to look.
    const [delivery] = await deliveries(t, key, first.endpoint.id);
    const detail = (await t.admin('GET', `/deliveries/${delivery.id}`)).json();
    assert.equal(detail.attempts.length, 3);
    for (const attempt of detail.attempts) assert.match(attempt.error, /^address refused: 127\.0\.0\.2 is a loopback address/);
    assert.equal(local.requests.length, 0);
  } finally {
    await w.stop();
    await local.close();
  }
}, { env: WEBHOOK_ENV });
