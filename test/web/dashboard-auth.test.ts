// Dashboard sign-in, sessions and CSRF (src/web/dashboard/, src/modules/users/): what a browser
// sees over HTTP, on both databases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, dialects } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, csrfOf, DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';
import { connect } from '../../src/db/connect.ts';
import { KEEP_MS } from '../../src/modules/users/session-changes.ts';
import { sleep, until } from '../webhooks/helpers.ts';

eachDatabase('a page without a session goes to /login?next=…, and sign-in returns there', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = new DashboardClient(t);
  const page = await client.get('/account?x=1');
  assert.equal(page.statusCode, 303);
  assert.equal(page.headers.location, '/login?next=%2Faccount%3Fx%3D1');

  const login = await client.get(String(page.headers.location));
  assert.equal(login.statusCode, 200);
  assert.match(login.body, /<label for="email">Email<\/label>/);
  assert.match(login.body, /<label for="password">Password<\/label>/);
  assert.match(login.body, /<button type="submit">Sign in<\/button>/);
  assert.match(login.body, /name="next" value="\/account\?x=1"/);
  assert.match(String(login.headers['content-security-policy']), /script-src 'self'/);

  const done = await client.post('/login', { _csrf: csrfOf(login.body), email: owner.email.toUpperCase(), password: PASSWORD, next: '/account?x=1' });
  assert.equal(done.statusCode, 303);
  assert.equal(done.headers.location, '/account?x=1');
  const cookie = String(done.headers['set-cookie']);
  assert.match(cookie, /repute_session=[A-Za-z0-9_-]{43};/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.doesNotMatch(cookie, /Secure/); // PUBLIC_URL is http here

  const account = await client.get('/account?x=1');
  assert.equal(account.statusCode, 200);
  assert.ok(account.body.includes(owner.email));
  assert.match(account.body, /<button type="submit" class="secondary">Sign out<\/button>/);
});

eachDatabase('next never leads to another site', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example', '/\t/evil.example', 'javascript:alert(1)', '/login']) {
    const client = new DashboardClient(t);
    const login = await client.get('/login');
    const res = await client.post('/login', { _csrf: csrfOf(login.body), email: owner.email, password: PASSWORD, next });
    assert.equal(res.statusCode, 303, next);
    assert.equal(res.headers.location, '/', next);
  }
});

eachDatabase('next is sent percent-encoded where a header cannot carry it as typed', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = new DashboardClient(t);
  const login = await client.get('/login');
  const res = await client.post('/login', { _csrf: csrfOf(login.body), email: owner.email, password: PASSWORD, next: '/reviews?q=Zürich café\x7f' });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/reviews?q=Z%C3%BCrich%20caf%C3%A9%7F');
  for (const [next, location] of [['/%C4%80', '/%C4%80'], ['/%E2%80%A8', '/%E2%80%A8'], ['/%ED%A0%80', '/%ED%A0%80']]) {
    const signedInAlready = await client.get(`/login?next=${next}`);
    assert.equal(signedInAlready.statusCode, 303, next);
    assert.equal(signedInAlready.headers.location, location, next);
  }
});

eachDatabase('form fields sent as JSON that are not text read as empty: the form answers, never a 500', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const anonymous = new DashboardClient(t);
  const login = await anonymous.get('/login');
  for (const body of [{ email: { a: 1 }, password: 'x' }, { email: owner.email, password: 123 }, { email: [[owner.email]], password: [PASSWORD] }]) {
    const res = await anonymous.postJson('/login', { _csrf: csrfOf(login.body), ...body });
    assert.equal(res.statusCode, 401, `${JSON.stringify(body)}: ${res.body.slice(0, 200)}`);
    assert.match(res.body, /The e-mail or the password is wrong\./);
  }
  const client = await signedIn(t, owner.email);
  const page = await client.get('/settings/webhooks');
  const res = await client.postJson('/settings/webhooks', { _csrf: csrfOf(page.body), name: { x: 1 }, url: ['https://hooks.example/a', 2], events: [1, 'review.received'] });
  assert.equal(res.statusCode, 400, res.body.slice(0, 300));
  assert.match(res.body, /name/);
});

eachDatabase('concurrent wrong sign-ins cannot pass the lock together: at most the limit of passwords are tried', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = new DashboardClient(t);
  const csrf = csrfOf((await client.get('/login')).body);
  const tries = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    client.post('/login', { _csrf: csrf, email: owner.email, password: i === 11 ? PASSWORD : `wrong password ${i}` })));
  const statuses = tries.map((r) => r.statusCode);
  assert.ok(statuses.filter((s) => s !== 429).length <= 3, statuses.join(' '));
  assert.ok(statuses.filter((s) => s === 401).length >= 2, statuses.join(' '));
  // The e-mail is locked now, the right password included; a right one earlier did not count as a failure.
  assert.equal((await client.post('/login', { _csrf: csrf, email: owner.email, password: PASSWORD })).statusCode, 429);
}, { env: { LOGIN_EMAIL_FAILURE_LIMIT: '3' } });

eachDatabase('a wrong e-mail and a wrong password get the same one message', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = new DashboardClient(t);
  const bodies: string[] = [];
  for (const [email, password] of [[owner.email, 'not the password at all'], ['nobody@example.com', PASSWORD]] as const) {
    const login = await client.get('/login');
    const res = await client.post('/login', { _csrf: csrfOf(login.body), email, password });
    assert.equal(res.statusCode, 401);
    assert.equal(res.cookies.find((c) => c.name === 'repute_session'), undefined);
    bodies.push(/<p class="fault" role="alert"[^>]*>([^<]*)<\/p>/.exec(res.body)?.[1] ?? '');
    // The fault belongs to both fields, the e-mail is kept and the password field takes the focus to type again.
    assert.match(res.body, /<input type="email"[^>]* value="[^"]+"[^>]* aria-describedby="login-fault">/);
    assert.match(res.body, /<input type="password"[^>]* autofocus aria-describedby="login-fault">/);
  }
  assert.equal(bodies[0], 'The e-mail or the password is wrong.');
  assert.equal(bodies[1], bodies[0]);
});

eachDatabase('a state-changing request without a valid CSRF token is refused with 403: signed in with the reason, signed out with the sign-in form', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const anonymous = new DashboardClient(t);
  await anonymous.get('/login');
  // Signed out (the sign-in form's cookie gone, or a form of a session that has ended): 403, and the
  // sign-in form with why, from which the user signs in.
  const noToken = await anonymous.post('/login', { email: owner.email, password: PASSWORD });
  assert.equal(noToken.statusCode, 403);
  assert.equal(noToken.cookies.find((c) => c.name === 'repute_session'), undefined, 'no session without the token');
  assert.match(noToken.body, /<p role="status">You were signed out, or the page was open too long: please sign in again\.<\/p>/);
  const again = await anonymous.post('/login', { _csrf: csrfOf(noToken.body), email: owner.email, password: PASSWORD });
  assert.equal(again.statusCode, 303, 'the form shown with the 403 signs in');
  assert.equal((await new DashboardClient(t).post('/login', { _csrf: 'made-up', email: owner.email, password: PASSWORD })).statusCode, 403);

  const client = await signedIn(t, owner.email);
  // /settings typed by hand leads on: an owner to the API keys (where the nav's Settings goes), others to their account.
  assert.equal((await client.get('/settings')).headers.location, '/settings/api');
  const viewer = await signedIn(t, (await createUser(t, tree.accountId, 'viewer')).email);
  assert.equal((await viewer.get('/settings')).headers.location, '/account');
  const page = await client.get('/account');
  const refused = await client.post('/account/language', { language: 'de' });
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /reload the page and send it again/);
  assert.equal((await client.post('/account/language', { language: 'de', _csrf: 'made-up' })).statusCode, 403);
  // A token of another session (here: the signed-out login form's) is refused too.
  const other = new DashboardClient(t);
  const otherLogin = await other.get('/login');
  assert.equal((await client.post('/account/language', { language: 'de', _csrf: csrfOf(otherLogin.body) })).statusCode, 403);
  // The header works as well as the field.
  const ok = await client.post('/account/language', { language: 'de' }, { 'x-csrf-token': csrfOf(page.body) });
  assert.equal(ok.statusCode, 303);
  const german = await client.get('/account');
  assert.match(german.body, /<html lang="de">/);
  assert.match(german.body, /Abmelden/);
  // Signed out in another tab: this tab's form, sent later, leads to sign-in.
  const stale = csrfOf(german.body);
  await client.submit('/account', '/logout', {});
  const late = await client.post('/account/language', { language: 'en', _csrf: stale });
  assert.equal(late.statusCode, 403);
  assert.match(late.body, /please sign in again/);
});

eachDatabase('sign-out and user deletion end the session at once', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const stolen = client.jar.get('repute_session')!;
  const res = await client.submit('/', '/logout', {});
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/login?signed_out=1');
  // The old cookie, replayed, names no session any more.
  const replay = new DashboardClient(t);
  replay.jar.set('repute_session', stolen);
  assert.equal((await replay.get('/')).statusCode, 303);

  const again = await signedIn(t, owner.email);
  assert.equal((await again.get('/')).statusCode, 200);
  assert.equal((await t.admin('DELETE', `/users/${owner.id}`)).statusCode, 200);
  const after = await again.get('/');
  assert.equal(after.statusCode, 303);
  assert.match(String(after.headers.location), /^\/login/);
  assert.equal((await new DashboardClient(t).signIn(owner.email)).statusCode, 401);
});

eachDatabase('a change made by another process reaches a signed-in user: a setting, a role, the session ended', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  // A connection of its own to the same database: what `repute users …`, another instance or plain SQL holds.
  const elsewhere = connect(t.testDb.url, t.testDb.schema === null ? {} : { schema: t.testDb.schema });
  // SQLite: the server reads the change count before using a kept session, so the change shows on
  // the next request. PostgreSQL: the server hears it by NOTIFY, in milliseconds; well before a
  // kept session would be read again anyway (KEEP_MS), so a lost notification fails this test.
  const shows = async (what: string, probe: () => Promise<boolean>) => {
    if (t.dialect === 'sqlite') assert.ok(await probe(), what);
    else await until(probe, KEEP_MS / 2, what);
  };
  try {
    // A few requests first, so this instance keeps the session in memory (on PostgreSQL once it listens).
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await client.get('/')).statusCode, 200);
      await sleep(50);
    }
    await elsewhere.db.updateTable('users').set({ language: 'de' }).where('id', '=', owner.id).execute();
    await shows('the German page', async () => /<html lang="de">/.test((await client.get('/')).body));
    await elsewhere.db.updateTable('users').set({ role: 'viewer' }).where('id', '=', owner.id).execute();
    await shows('the owner-only page refused', async () => (await client.get('/settings/users')).statusCode === 403);
    await elsewhere.db.deleteFrom('user_sessions').execute();
    await shows('the session ended', async () => (await client.get('/')).statusCode === 303);
  } finally {
    await elsewhere.destroy();
  }
});

eachDatabase('failed sign-ins lock the e-mail (even the right password) and the address', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const other = await createUser(t, tree.accountId, 'viewer');
  const client = new DashboardClient(t);
  for (let i = 0; i < 3; i += 1) assert.equal((await client.signIn(owner.email, 'wrong password here')).statusCode, 401);
  const locked = await client.signIn(owner.email);
  assert.equal(locked.statusCode, 429);
  assert.match(locked.body, /Too many failed sign-ins/);
  assert.ok(Number(locked.headers['retry-after']) > 0);
  // Another e-mail from the same address still signs in (its address count is 3 of 5).
  assert.equal((await new DashboardClient(t).signIn(other.email)).statusCode, 303);
  for (let i = 0; i < 2; i += 1) await client.signIn(`nobody${i}@example.com`, 'wrong password here');
  assert.equal((await new DashboardClient(t).signIn(other.email)).statusCode, 429);
}, { env: { LOGIN_EMAIL_FAILURE_LIMIT: '3', LOGIN_ADDRESS_FAILURE_LIMIT: '5' } });

eachDatabase('the cookie is Secure when PUBLIC_URL is https', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const res = await new DashboardClient(t).signIn(owner.email);
  assert.equal(res.statusCode, 303);
  assert.match(String(res.headers['set-cookie']), /repute_session=[^;]+;.*Secure/);
}, { env: { PUBLIC_URL: 'https://reviews.example.com' } });

eachDatabase('a session ends after its idle time and at its absolute end', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const idle = await signedIn(t, owner.email);
  const absolute = await signedIn(t, owner.email);
  assert.equal((await idle.get('/')).statusCode, 200);
  const hashOf = async (client: DashboardClient) => {
    const { createHash } = await import('node:crypto');
    return createHash('sha256').update(client.jar.get('repute_session')!).digest('hex');
  };
  // The clock cannot be moved: the rows are aged instead, as time would have.
  const longAgo = new Date(Date.now() - 3_601_000).toISOString();
  await t.ctx.db.updateTable('user_sessions').set({ last_seen_at: longAgo }).where('id_hash', '=', await hashOf(idle)).execute();
  await t.ctx.db.updateTable('user_sessions').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id_hash', '=', await hashOf(absolute)).execute();
  assert.equal((await idle.get('/')).statusCode, 303);
  assert.equal((await absolute.get('/')).statusCode, 303);
  // Both rows are gone, not just refused.
  assert.equal((await t.ctx.db.selectFrom('user_sessions').select('id_hash').execute()).length, 0);
}, { env: { SESSION_IDLE_S: '3600' } });

test('with Redis, a locked e-mail is locked on every instance sharing the database', async () => {
  const env = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', LOGIN_EMAIL_FAILURE_LIMIT: '2', LOGIN_ADDRESS_FAILURE_LIMIT: '1000000' };
  // PostgreSQL when it is configured: two instances, two connection pools, one database.
  const first = await createTestApp(dialects.at(-1)!, { env });
  const second = await createTestApp(dialects.at(-1)!, { env, database: first.testDb });
  try {
    const tree = await createTree(first);
    const owner = await createUser(first, tree.accountId, 'owner');
    for (let i = 0; i < 2; i += 1) assert.equal((await new DashboardClient(first).signIn(owner.email, 'wrong password here')).statusCode, 401);
    assert.equal((await new DashboardClient(second).signIn(owner.email)).statusCode, 429);
    // A session opened on one instance is the other's too, and ends on both.
    const other = await createUser(first, tree.accountId, 'viewer');
    const client = await signedIn(first, other.email);
    const elsewhere = new DashboardClient(second);
    elsewhere.jar.set('repute_session', client.jar.get('repute_session')!);
    assert.equal((await elsewhere.get('/')).statusCode, 200);
    await client.submit('/', '/logout', {});
    assert.equal((await elsewhere.get('/')).statusCode, 303);
  } finally {
    await second.close();
    await first.close();
  }
});
