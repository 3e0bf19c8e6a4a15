// The typed client (clients/typescript) against a live server: the app listening on a loopback
// port, a real webhook receiver and delivery worker. Its types are the committed generation of the
// live document (a stale schema.d.ts fails here: run `npm run client:generate`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createReputeClient, pages, ReputeApiError, verifyWebhook, WebhookVerificationError, type Schemas } from '../../clients/typescript/src/index.ts';
import { SCHEMA_FILE, liveDocument, schemaTypes } from '../../clients/typescript/scripts/generate.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { newSecret } from '../../src/delivery/signer.ts';
import { WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

test('the committed client types are a fresh generation of the live document', async () => {
  const fresh = await schemaTypes(await liveDocument());
  assert.ok(fresh.includes('"/webhooks/{id}/secret/rotate"') && fresh.includes('export interface webhooks'));
  assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), fresh, 'clients/typescript/src/schema.d.ts is stale: run npm run client:generate');
});

eachDatabase('the client lists reviews across pages, reads and manages webhooks, and surfaces errors', async (t) => {
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const tree = await createTree(t);
  const created = [];
  for (let i = 0; i < 7; i++) created.push(await createReview(t, tree.accountId, tree.properties[i % 2]!, { rating: 1 + (i % 5) }));
  const client = createReputeClient({ baseUrl: address, apiKey: await createKey(t, tree.accountId, tree.root) });

  const seen: Schemas['Review'][] = [];
  let requests = 0;
  for await (const review of pages((cursor) => {
    requests += 1;
    return client.GET('/reviews', { params: { query: { limit: 2, cursor } } });
  })) seen.push(review);
  assert.equal(requests, 4, '2 + 2 + 2 + 1');
  assert.deepEqual(seen.map((r) => r.id).sort(), created.map((r) => r.id).sort());

  const one = await client.GET('/reviews/{id}', { params: { path: { id: created[0].id } } });
  assert.equal(one.data?.id, created[0].id);
  const missing = await client.GET('/reviews/{id}', { params: { path: { id: 'nope' } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'not_found');

  const endpoint = await client.POST('/webhooks', { body: { name: 'Ops', url: 'https://hooks.example.com/in', events: ['review.received'] } });
  assert.equal(endpoint.response.status, 201);
  assert.match(endpoint.data!.secret, /^whsec_/);
  const read = await client.GET('/webhooks/{id}', { params: { path: { id: endpoint.data!.endpoint.id } } });
  assert.deepEqual(read.data, endpoint.data!.endpoint);
  assert.equal(read.data?.disabled_reason, null);

  // A bad key: the page walk throws the envelope's code.
  const stranger = createReputeClient({ baseUrl: `${address}/api/v4/`, apiKey: 'rk_live_nope' });
  await assert.rejects(async () => {
    for await (const _ of pages((cursor) => stranger.GET('/reviews', { params: { query: { cursor } } }))) assert.fail('no page');
  }, (error: unknown) => error instanceof ReputeApiError && error.status === 401 && error.code === 'unauthorized');
});

eachDatabase('verifyWebhook accepts a real delivery under either secret of a rotation and refuses tampering and stale timestamps', async (t) => {
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const client = createReputeClient({ baseUrl: address, apiKey: await createKey(t, tree.accountId, tree.root) });
    const created = await client.POST('/webhooks', { body: { name: 'Ops', url: receiver.url, events: ['review.received'] } });
    const first = created.data!.secret;
    const id = created.data!.endpoint.id;
    const rotated = await client.POST('/webhooks/{id}/secret/rotate', { params: { path: { id } }, body: { grace_period_seconds: 3600 } });
    assert.equal(rotated.response.status, 200);
    const second = rotated.data!.secret;

    const review = await createReview(t, tree.accountId, tree.properties[0]);
    await receiver.waitFor((requests) => requests.length === 1);
    const { body, headers } = receiver.requests[0]!;
    const event = verifyWebhook(second, body, headers);
    assert.equal(event.type, 'review.received');
    assert.equal(event.type === 'review.received' && event.data.review.id, review.id);
    assert.deepEqual(verifyWebhook(first, body, headers), event);
    assert.deepEqual(verifyWebhook([newSecret(), second], body, headers), event);

    const refused = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (e: unknown) => e instanceof WebhookVerificationError && pattern.test(e.message));
    refused(() => verifyWebhook(newSecret(), body, headers), /no signature/);
    refused(() => verifyWebhook(second, body.replace('review.received', 'review.replied'), headers), /no signature/);
    refused(() => verifyWebhook(second, body, headers, { now: new Date(Date.now() + 10 * 60_000) }), /300 s/);
    assert.deepEqual(verifyWebhook(second, body, headers, { now: new Date(Date.now() + 10 * 60_000), toleranceS: 900 }), event);
    refused(() => verifyWebhook(second, body, { ...headers, 'webhook-signature': undefined }), /webhook-signature header is missing/);

    // The deliveries, read through the client, carry last_error.
    const listed = await client.GET('/webhooks/{id}/deliveries', { params: { path: { id } } });
    assert.equal(listed.data?.data[0]?.last_error, null);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: WEBHOOK_ENV });
