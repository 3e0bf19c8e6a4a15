// Settings → Users (src/web/dashboard/settings-users.ts): an owner creates a user who can then sign
// in, changes a role (the new role applies at the next request), removes a user (sessions end);
// reach is the owner's subtree; forged ids answer 404.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';

const userIdOf = (html: string, email: string): string =>
  new RegExp(`${email.replace(/[.+]/g, '\\$&')}[\\s\\S]*?action="/settings/users/([0-9a-f-]{36})/role"`).exec(html)?.[1] ?? '';

eachDatabase('an owner creates a user, changes its role and removes it', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const short = await client.submit('/settings/users', '/settings/users', { email: 'gm@harbour.example', password: 'short', role: 'manager', node_id: tree.properties[0] });
  assert.equal(short.statusCode, 400);
  assert.match(short.body, /id="password-fault">Please use 12 to 1024 characters\.</);
  assert.match(short.body, /value="gm@harbour.example"/);
  // Two faults at once: each beside its own field, in the page's language.
  const both = await client.submit('/settings/users', '/settings/users', { email: 'not-an-address', password: 'short', role: 'manager', node_id: '' }, { 'accept-language': 'de' });
  assert.equal(both.statusCode, 400);
  assert.match(both.body, /aria-invalid="true" aria-describedby="email-fault"[\s\S]*id="email-fault">Bitte geben Sie eine E-Mail-Adresse ein\.</);
  assert.match(both.body, /id="password-fault">Bitte verwenden Sie 12 bis 1024 Zeichen\.</);

  const created = await client.submit('/settings/users', '/settings/users', { email: 'gm@harbour.example', password: PASSWORD, role: 'viewer', node_id: tree.properties[0] });
  assert.equal(created.statusCode, 303);
  const blank = await client.submit('/settings/users', '/settings/users', { email: 'blank@harbour.example', password: ' '.repeat(12), role: 'viewer', node_id: '' });
  assert.equal(blank.statusCode, 400);
  assert.match(blank.body, /id="password-fault">Please choose a password of more than spaces\.</);
  const dup = await client.submit('/settings/users', '/settings/users', { email: 'GM@Harbour.example', password: PASSWORD, role: 'viewer', node_id: '' });
  assert.equal(dup.statusCode, 409);
  assert.match(dup.body, /id="email-fault">A user with this e-mail address already exists\.</);

  const gm = await signedIn(t, 'gm@harbour.example');
  const refused = await gm.get('/settings/api');
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /This page is for the role Owner and above; yours is Viewer\./);
  assert.match((await gm.get('/settings/api', { 'accept-language': 'de' })).body, /Diese Seite ist für die Rolle Inhaber und höher; Ihre Rolle ist Betrachter\./);
  const list = (await client.get('/settings/users')).body;
  assert.match(list, /gm@harbour\.example[\s\S]*?<td data-label="Node">Harbour Hotel<\/td>/);
  // Looked up by label (a substring, as a browser test's getByLabel does), Role, Email and Node name the create form's fields only.
  for (const word of ['role', 'email', 'node']) {
    const named = [...list.matchAll(/<label for="[^"]+">([^<]*)<\/label>|aria-label="([^"]*)"/g)].map((m) => (m[1] ?? m[2])!.toLowerCase()).filter((name) => name.includes(word));
    assert.equal(named.length, 1, `${word}: ${named.join(' | ')}`);
  }
  const id = userIdOf(list, 'gm@harbour.example');
  assert.ok(id);
  assert.equal((await client.submit('/settings/users', `/settings/users/${id}/role`, { role: 'owner' })).statusCode, 303);
  // The new role applies at once, in the session already open; the reach stays the hotel's.
  const api = await gm.get('/settings/api');
  assert.equal(api.statusCode, 200);
  assert.ok(api.body.includes('>Harbour Hotel</option>'));
  assert.ok(!api.body.includes('>Lake Lodge</option>'));

  assert.equal((await client.submit('/settings/users', `/settings/users/${id}/remove`, {})).statusCode, 303);
  assert.equal((await gm.get('/')).statusCode, 303);
  assert.equal((await new DashboardClient(t).signIn('gm@harbour.example')).statusCode, 401);
  // The owner cannot remove or demote itself.
  const ownId = (await t.ctx.db.selectFrom('users').select('id').where('email_key', '=', owner.email.toLowerCase()).executeTakeFirstOrThrow()).id;
  assert.equal((await client.submit('/settings/users', `/settings/users/${ownId}/remove`, {})).statusCode, 400);
  assert.equal((await client.submit('/settings/users', `/settings/users/${ownId}/role`, { role: 'viewer' })).statusCode, 400);
});

eachDatabase('an owner of a region sees and manages the users of its subtree only', async (t) => {
  const tree = await createTree(t);
  const regional = await createUser(t, tree.accountId, 'owner', tree.regions[0]);
  const south = await createUser(t, tree.accountId, 'viewer', tree.properties[2]);
  const whole = await createUser(t, tree.accountId, 'viewer');
  const other = await createTree(t);
  const stranger = await createUser(t, other.accountId, 'viewer');
  const client = await signedIn(t, regional.email);
  const page = (await client.get('/settings/users')).body;
  assert.ok(!page.includes(south.email));
  assert.ok(!page.includes(whole.email));
  assert.ok(!page.includes('>Whole account</option>'));
  for (const id of [south.id, whole.id, stranger.id, 'nope']) {
    assert.equal((await client.submit('/settings/users', `/settings/users/${id}/remove`, {})).statusCode, 404, id);
    assert.equal((await client.submit('/settings/users', `/settings/users/${id}/role`, { role: 'owner' })).statusCode, 404, id);
  }
  const outside = await client.submit('/settings/users', '/settings/users', { email: 'z@z.example', password: PASSWORD, role: 'viewer', node_id: '' });
  assert.equal(outside.statusCode, 400);
  assert.match(outside.body, /id="node_id-fault">Please choose your own part of the account or one below it\.</);
});
