// Settings → Webhooks (src/web/dashboard/settings-webhooks.ts): create (secret shown once), test
// ping delivered and logged with its status, a failing receiver's reason in the log, re-send,
// edit, pause/resume, delete; other accounts' ids answer 404.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, signedIn } from '../support/dashboard.ts';
import { startReceiver } from '../support/receiver.ts';
import { until, verified, WEBHOOK_ENV, worker } from '../webhooks/helpers.ts';

const secretOf = (html: string): string => /data-testid="new-webhook-secret">([^<]+)</.exec(html)?.[1] ?? '';
const endpointIdOf = (html: string): string => /action="\/settings\/webhooks\/([0-9a-f-]{36})\/test"/.exec(html)?.[1] ?? '';

eachDatabase('an owner creates an endpoint, tests it and reads the delivery log', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    let status = 200;
    receiver.answer(() => ({ status }));
    const tree = await createTree(t);
    const owner = await createUser(t, tree.accountId, 'owner');
    const client = await signedIn(t, owner.email);
    const page = await client.get('/settings/webhooks');
    assert.equal(page.statusCode, 200);
    for (const label of ['Name', 'URL', 'review.received', 'guest.unsubscribed']) assert.ok(page.body.includes(`>${label}</`), label);
    assert.match(page.body, /<button type="submit">Create endpoint<\/button>/);

    const created = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Ops <desk>', url: `${receiver.url}/hook`, events: ['review.received', 'review.replied'] });
    assert.equal(created.statusCode, 201, created.body.slice(0, 500));
    const secret = secretOf(created.body);
    assert.match(secret, /^whsec_/);
    assert.ok(created.body.includes('Ops &lt;desk&gt;'));
    assert.doesNotMatch(created.body, /will fail/, 'WEBHOOK_ALLOW_PRIVATE admits the receiver at 127.0.0.1');
    const id = endpointIdOf(created.body);
    assert.ok(id);
    const listed = (await client.get('/settings/webhooks')).body;
    assert.ok(!listed.includes(secret), 'the secret is shown once');
    // With an endpoint listed, Name and URL (looked up by label as a substring) still name the create form's fields only.
    for (const word of ['name', 'url']) {
      const named = [...listed.matchAll(/<label for="[^"]+">([^<]*)<\/label>|aria-label="([^"]*)"/g)].map((m) => (m[1] ?? m[2])!.toLowerCase()).filter((n) => n.includes(word));
      assert.equal(named.length, 1, `${word}: ${named.join(' | ')}`);
    }

    assert.equal((await client.submit('/settings/webhooks', `/settings/webhooks/${id}/test`, {})).statusCode, 303);
    await receiver.waitFor((r) => r.length === 1, 10_000, 'the test ping');
    assert.equal(verified(secret, receiver.requests[0]!).type, 'ping');
    const delivered = await until(async () => {
      const html = (await client.get('/settings/webhooks')).body;
      return html.includes('data-status="delivered"') && html;
    }, 10_000, 'the log to show the delivery');
    assert.match(delivered, /<code>ping<\/code>/);
    assert.match(delivered, /HTTP 200/);

    // A failing receiver: the log says why, and the failed delivery can be re-sent.
    status = 500;
    await client.submit('/settings/webhooks', `/settings/webhooks/${id}/test`, {});
    const failed = await until(async () => {
      const html = (await client.get('/settings/webhooks')).body;
      return html.includes('data-status="failed"') && html;
    }, 10_000, 'the log to show the failure');
    assert.match(failed, /HTTP 500/);
    const resend = /action="(\/settings\/webhooks\/[0-9a-f-]{36}\/deliveries\/[0-9a-f-]{36}\/resend)"/.exec(failed)?.[1];
    assert.ok(resend);
    status = 200;
    assert.equal((await client.submit('/settings/webhooks', resend, {})).statusCode, 303);
    await receiver.waitFor((r) => r.length >= 5, 10_000, 'the re-sent delivery'); // 1 ok + 3 attempts + the re-send
    await until(async () => !(await client.get('/settings/webhooks')).body.includes('data-status="failed"'), 10_000, 'the re-sent delivery to succeed');
    // Two pings and a re-send: the endpoint's window (WEBHOOK_TEST_LIMIT 3 a minute) is full for both.
    const fourth = await client.submit('/settings/webhooks', resend, {});
    assert.equal(fourth.statusCode, 429, fourth.body.slice(0, 300));
    assert.ok(Number(fourth.headers['retry-after']) > 0);
    assert.equal((await client.submit('/settings/webhooks', `/settings/webhooks/${id}/test`, {})).statusCode, 429);
    assert.equal(receiver.requests.length, 5);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, REPUTE_WORKER: 'off', WEBHOOK_TEST_LIMIT: '3' } });

eachDatabase('edit, pause and resume, delete; faults by the field; another account\'s ids are 404', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const bad = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Ops', url: 'ftp://example.com/x', events: ['review.received'] });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /id="url-fault">Please enter a web address starting with https:\/\/ \(or http:\/\/\)\.</);
  const allWrong = await client.submit('/settings/webhooks', '/settings/webhooks', { name: '', url: 'hooks.example.com' });
  assert.equal(allWrong.statusCode, 400);
  for (const [name, words] of [['name', 'Please fill this in.'], ['url', 'Please enter a web address'], ['events', 'Please choose at least one.']]) {
    assert.match(allWrong.body, new RegExp(`id="${name}-fault">${words!.replace(/[.()/]/g, '\\$&')}`), `the ${name} fault beside its field`);
  }
  const noEvents = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Ops', url: 'https://hooks.example.com/x' });
  assert.equal(noEvents.statusCode, 400);
  assert.match(noEvents.body, /id="events-fault">Please choose at least one\./);
  assert.match(noEvents.body, /value="https:\/\/hooks\.example\.com\/x"/);

  const created = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Ops', url: 'https://hooks.example.com/x', events: ['review.received'] });
  const id = endpointIdOf(created.body);
  assert.doesNotMatch(created.body, /will fail/, 'a host name is judged at delivery, by DNS');
  // A private or local address is saved (the API's contract refuses it at delivery only), and its card and edit page say now that deliveries will fail.
  const local = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Local', url: 'http://10.1.2.3:8080/x', events: ['review.received'] });
  assert.equal(local.statusCode, 201);
  const localId = endpointIdOf(local.body.slice(local.body.indexOf('>Local<')));
  const warning = /<p class="fault">Deliveries to this URL will fail — address refused: 10\.1\.2\.3 is a private address \(WEBHOOK_ALLOW_PRIVATE can admit it for development\)<\/p>/;
  assert.match(local.body, warning);
  assert.match((await client.get(`/settings/webhooks/${localId}`)).body, warning);
  await client.submit(`/settings/webhooks/${localId}`, `/settings/webhooks/${localId}`, { name: 'Local', url: 'https://api.localhost/x', events: ['review.received'] });
  assert.match((await client.get(`/settings/webhooks/${localId}`)).body, /will fail — address refused: api\.localhost resolves to a loopback address \(WEBHOOK_ALLOW_PRIVATE/);
  assert.equal((await client.submit('/settings/webhooks', `/settings/webhooks/${localId}/delete`, {})).statusCode, 303);
  const edit = await client.get(`/settings/webhooks/${id}`);
  assert.equal(edit.statusCode, 200);
  assert.match(edit.body, /value="Ops"/);
  const saved = await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 2', url: 'https://hooks.example.com/y', events: ['review.replied', 'guest.created'] });
  assert.equal(saved.statusCode, 303);
  const list = (await client.get('/settings/webhooks')).body;
  assert.match(list, />Ops 2</);
  assert.match(list, /review\.replied, guest\.created/);
  // A password in an endpoint's URL is on no page: not in the list, not in the edit form.
  await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 2', url: 'https://hooks:s3cr%40t@hooks.example.com/y', events: ['review.replied'] });
  const masked = (await client.get('/settings/webhooks')).body;
  assert.match(masked, /<p class="mono">https:\/\/hooks:•••@hooks\.example\.com\/y<\/p>/);
  assert.ok(!masked.includes('s3cr'));
  const form = (await client.get(`/settings/webhooks/${id}`)).body;
  assert.match(form, /<input type="url" id="hook-url" name="url"[^>]* value="https:\/\/hooks:•••@hooks\.example\.com\/y"/);
  assert.ok(!form.includes('s3cr'));
  const storedUrl = async () => (await t.ctx.db.selectFrom('webhook_endpoints').select('url').where('id', '=', id!).executeTakeFirstOrThrow()).url;
  // Sent back as shown, or with another path: the stored password stays.
  await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 3', url: 'https://hooks:•••@hooks.example.com/y', events: ['review.replied'] });
  assert.equal(await storedUrl(), 'https://hooks:s3cr%40t@hooks.example.com/y');
  await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 3', url: 'https://hooks:•••@hooks.example.com/z', events: ['review.replied'] });
  assert.equal(await storedUrl(), 'https://hooks:s3cr%40t@hooks.example.com/z');
  // To another server, ••• does not carry the password along: it must be typed again.
  const moved = await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 3', url: 'https://hooks:•••@elsewhere.example.net/z', events: ['review.replied'] });
  assert.equal(moved.statusCode, 400);
  assert.match(moved.body, /id="url-fault">The stored password \(•••\) stays only with the same server and user name: please type the password again\.</);
  assert.equal(await storedUrl(), 'https://hooks:s3cr%40t@hooks.example.com/z');
  // A password with a broken escape is a fault beside the URL field (it answered 500).
  const odd = await client.submit(`/settings/webhooks/${id}`, `/settings/webhooks/${id}`, { name: 'Ops 3', url: 'https://hooks:%E0%A4%A@hooks.example.com/z', events: ['review.replied'] });
  assert.equal(odd.statusCode, 400);
  assert.match(odd.body, /id="url-fault">Please enter a web address/);
  assert.equal(await storedUrl(), 'https://hooks:s3cr%40t@hooks.example.com/z');

  const paused = await client.submit('/settings/webhooks', `/settings/webhooks/${id}/active`, { is_active: 'false' });
  assert.equal(paused.statusCode, 303);
  assert.match((await client.get(String(paused.headers.location))).body, /<p class="notice" role="status" tabindex="-1" autofocus>Paused: events are kept for the endpoint/);
  const resumed = await client.submit('/settings/webhooks', `/settings/webhooks/${id}/active`, { is_active: 'true' });
  const after = (await client.get(String(resumed.headers.location))).body;
  assert.match(after, />Pause</);
  assert.match(after, /<p class="notice" role="status" tabindex="-1" autofocus>Resumed: deliveries go out again/);

  const other = await createTree(t);
  const stranger = await signedIn(t, (await createUser(t, other.accountId, 'owner')).email);
  const notTheirs = await stranger.get(`/settings/webhooks/${id}`);
  assert.equal(notTheirs.statusCode, 404);
  // In the reader's words, not the service's ("webhook endpoint not found").
  assert.match(notTheirs.body, /<h1>This page does not exist<\/h1>/);
  assert.match(notTheirs.body, /What it showed may have been deleted, or the address may be old\./);
  assert.doesNotMatch(notTheirs.body, /not found/);
  for (const action of ['test', 'delete', 'active']) {
    assert.equal((await stranger.submit('/settings/webhooks', `/settings/webhooks/${id}/${action}`, { is_active: 'false' })).statusCode, 404, action);
  }
  assert.equal((await stranger.submit('/settings/webhooks', `/settings/webhooks/${id}`, { name: 'x', url: 'https://a.example', events: ['review.received'] })).statusCode, 404);

  assert.equal((await client.submit('/settings/webhooks', `/settings/webhooks/${id}/delete`, {})).statusCode, 303);
  assert.match((await client.get('/settings/webhooks')).body, /No webhook endpoints yet/);
});

eachDatabase('an owner gets a new signing secret on the edit page; for a day deliveries are signed with both', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const client = await signedIn(t, (await createUser(t, tree.accountId, 'owner')).email);
    const created = await client.submit('/settings/webhooks', '/settings/webhooks', { name: 'Ops', url: `${receiver.url}/hook`, events: ['review.received'] });
    const old = secretOf(created.body);
    const id = endpointIdOf(created.body);
    const edit = `/settings/webhooks/${id}`;
    assert.match((await client.get(edit)).body, /<button type="submit" class="secondary">New signing secret<\/button>/);
    const rotated = await client.submit(edit, `${edit}/secret`, {});
    assert.equal(rotated.statusCode, 200);
    const fresh = secretOf(rotated.body);
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, old);
    assert.match(rotated.body, /Deliveries are also signed with the previous secret until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
    assert.match(rotated.body, new RegExp(`<link rel="canonical" href="${edit}">`), 'a reload is the edit page, not a second rotation');
    assert.ok(!(await client.get(edit)).body.includes(fresh), 'the new secret is shown once');

    assert.equal((await client.submit(edit, `${edit}/test`, {})).statusCode, 303);
    await receiver.waitFor((r) => r.length === 1, 10_000, 'the test ping');
    assert.equal(verified(fresh, receiver.requests[0]!).type, 'ping', 'signed with the new secret');
    assert.equal(verified(old, receiver.requests[0]!).type, 'ping', 'and with the previous one, for the receiver not yet changed');

    // A leaked secret: replaced at once, the previous ones sign nothing more.
    const leaked = await client.submit(edit, `${edit}/secret`, { now: '1' });
    assert.equal(leaked.statusCode, 200);
    const only = secretOf(leaked.body);
    assert.doesNotMatch(leaked.body, /also signed with the previous secret/);
    assert.equal((await client.submit(edit, `${edit}/test`, {})).statusCode, 303);
    await receiver.waitFor((r) => r.length === 2, 10_000, 'the second ping');
    assert.equal(verified(only, receiver.requests[1]!).type, 'ping');
    assert.throws(() => verified(fresh, receiver.requests[1]!), 'the secret it replaced no longer signs');
  } finally {
    await w.stop();
    await receiver.close();
  }
}, { env: { ...WEBHOOK_ENV, REPUTE_WORKER: 'off' } });
