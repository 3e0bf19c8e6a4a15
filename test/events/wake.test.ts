// Events wake their consumers after commit, whoever wrote them: with the worker's poll at 60 s, a
// delivery that arrives within seconds was woken by the commit that queued it (src/db/transaction.ts),
// for every event source (admin API, public API, import, guest push on both of PostgreSQL's paths,
// consent withdrawal, test ping, resumed endpoint, re-sent delivery). No route calls anything for it.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { importNdjson } from '../../src/import/run.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { createEndpoint, verified, WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

// One attempt only (a 500 fails the delivery at once), and a poll too slow to hide a missed wake-up.
const options = { env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_S: '0', WEBHOOK_POLL_MS: '60000' } };
const SOON_MS = 3000;

eachDatabase('every event source wakes the worker at its commit, without waiting for the poll', async (t) => {
  const receiver = await startReceiver();
  let failNext = false;
  receiver.answer(() => {
    if (!failNext) return { status: 200 };
    failNext = false;
    return { status: 500 };
  });
  const tree = await createTree(t);
  const hooks = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
  const guests = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
  const { secret, endpoint } = await createEndpoint(t, hooks, receiver.url);
  const w = worker(t);
  try {
    const types = () => receiver.requests.map((r) => verified(secret, r).type as string);
    const arrives = async (what: string, type: string, act: () => Promise<unknown>) => {
      const before = receiver.requests.length;
      await act();
      await receiver.waitFor((r) => r.length > before, SOON_MS, `${what} to arrive without a poll`);
      assert.equal(types().at(-1), type, what);
    };

    await arrives('a review from the admin API', 'review.received', () => createReview(t, tree.accountId, tree.properties[0]));
    const review = (await t.ctx.db.selectFrom('reviews').select('id').executeTakeFirstOrThrow()).id;
    await arrives('an owner reply', 'review.replied', async () => {
      assert.equal((await t.admin('PUT', `/reviews/${review}/reply`, { text: 'Thanks' })).statusCode, 200);
    });
    await arrives('a review from an import', 'review.received', async () => {
      const summary = await importNdjson(t.testDb.database, Readable.from([`${JSON.stringify({
        type: 'review', account_id: tree.accountId, node_id: tree.properties[1], platform: 'google', external_id: 'imp-wake',
        reviewed_at: '2026-01-05T10:00:00.000Z', rating: 5,
      })}\n`]));
      assert.equal(summary.created.review, 1);
    });
    await arrives('a new guest (one statement on PostgreSQL)', 'guest.created', async () => {
      assert.equal((await t.api(guests, 'POST', '/guests', { email: 'one@example.com' })).statusCode, 201);
    });
    await arrives('a withdrawal pushed (a transaction on PostgreSQL)', 'guest.unsubscribed', async () => {
      assert.equal((await t.api(guests, 'POST', '/guests', { email: 'one@example.com', marketing_consent: false })).statusCode, 200);
    });
    await t.api(guests, 'POST', '/guests', { email: 'two@example.com' });
    await receiver.waitFor((r) => r.length === 6, SOON_MS);
    await arrives('an operator\'s unsubscribe', 'guest.unsubscribed', async () => {
      const r = await t.admin('POST', `/accounts/${tree.accountId}/guests/unsubscribe`, { property_id: tree.properties[0], email: 'two@example.com' });
      assert.equal(r.statusCode, 200, r.body);
    });
    await arrives('a test ping', 'ping', async () => {
      assert.equal((await t.api(hooks, 'POST', `/webhooks/${endpoint.id}/test`)).statusCode, 200);
    });

    // A delivery queued while the endpoint is paused goes out when it resumes.
    assert.equal((await t.api(hooks, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: false })).statusCode, 200);
    const before = receiver.requests.length;
    await createReview(t, tree.accountId, tree.properties[0]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.requests.length, before, 'nothing goes to a paused endpoint');
    await arrives('a resumed endpoint\'s waiting delivery', 'review.received', async () => {
      assert.equal((await t.api(hooks, 'PATCH', `/webhooks/${endpoint.id}`, { is_active: true })).statusCode, 200);
    });

    // A delivery that failed (its one attempt answered 500) goes out again when the operator re-sends it.
    failNext = true;
    await arrives('a delivery that fails', 'review.received', () => createReview(t, tree.accountId, tree.properties[0]));
    const findFailed = () => t.ctx.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').executeTakeFirst();
    let failed = await findFailed();
    // The attempt's result is written just after the answer arrives (the recorder's group commit).
    for (const deadline = Date.now() + SOON_MS; !failed && Date.now() < deadline; failed = await findFailed()) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(failed, 'the delivery that got a 500 is failed');
    await arrives('a re-sent delivery', 'review.received', async () => {
      assert.equal((await t.admin('POST', `/deliveries/${failed.id}/retry`)).statusCode, 202);
    });
  } finally {
    await w.stop();
    await receiver.close();
  }
}, options);
