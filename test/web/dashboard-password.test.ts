// Your account → Change password (POST /account/password), on both databases: the faults shown beside
// their fields, the current password checked as sign-in checks it (and locked with it), every other
// session ended and the one in use kept.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { createUser, DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';

const NEW_PASSWORD = 'a quiet room facing the harbour';

/** The text of the fault beside a field of the page, or null. */
const faultOf = (html: string, name: string): string | null => new RegExp(`id="${name}-fault">([^<]*)<`).exec(html)?.[1] ?? null;

eachDatabase('a user changes its password: other sessions end, this one stays, the old password no longer signs in', async (t) => {
  const tree = await createTree(t);
  const gm = await createUser(t, tree.accountId, 'manager', tree.properties[0]);
  const phone = await signedIn(t, gm.email);
  const laptop = await signedIn(t, gm.email);

  const page = await laptop.get('/account');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h2 id="password-heading">Change password<\/h2>/);
  assert.match(page.body, /<label for="current-password">Current password<\/label>/);
  assert.match(page.body, /autocomplete="current-password"/);
  assert.match(page.body, /<label for="new-password">New password<\/label>/);
  assert.match(page.body, /<label for="repeat-password">New password again<\/label>/);

  const done = await laptop.submit('/account', '/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD });
  assert.equal(done.statusCode, 303, done.body.slice(0, 400));
  assert.equal(done.headers.location, '/account?saved=password');
  const after = await laptop.get('/account?saved=password');
  assert.equal(after.statusCode, 200, 'the session that changed the password stays signed in');
  assert.match(after.body, /Your password is changed\. Everywhere else you were signed in, you are now signed out/);

  const other = await phone.get('/reviews');
  assert.equal(other.statusCode, 303, 'the other session is signed out');
  assert.match(String(other.headers.location), /^\/login/);
  assert.equal((await new DashboardClient(t).signIn(gm.email, PASSWORD)).statusCode, 401, 'the old password no longer signs in');
  assert.equal((await new DashboardClient(t).signIn(gm.email, NEW_PASSWORD)).statusCode, 303, 'the new one does');
});

eachDatabase('a refused password change names the field: rules, the repeat, a wrong or unchanged current password; in German too', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const tryChange = (current: string, next: string, repeated: string) =>
    client.submit('/account', '/account/password', { current_password: current, new_password: next, repeat_password: repeated });

  const short = await tryChange(PASSWORD, 'too short', 'too short');
  assert.equal(short.statusCode, 400);
  assert.equal(faultOf(short.body, 'new_password'), 'Please use 12 to 1024 characters.');
  assert.match(short.body, /id="new-password"[^>]*aria-describedby="new-password-hint new_password-fault" aria-invalid="true" autofocus/);

  const spaces = await tryChange(PASSWORD, ' '.repeat(14), ' '.repeat(14));
  assert.equal(faultOf(spaces.body, 'new_password'), 'Please choose a password of more than spaces.');

  const differ = await tryChange(PASSWORD, NEW_PASSWORD, `${NEW_PASSWORD}!`);
  assert.equal(differ.statusCode, 400);
  assert.equal(faultOf(differ.body, 'repeat_password'), 'The two new passwords differ: please type the same one twice.');

  const wrong = await tryChange('not my password at all', NEW_PASSWORD, NEW_PASSWORD);
  assert.equal(wrong.statusCode, 400);
  assert.equal(faultOf(wrong.body, 'current_password'), 'This is not your current password.');
  assert.equal(faultOf(wrong.body, 'new_password'), null);

  const same = await tryChange(PASSWORD, PASSWORD, PASSWORD);
  assert.equal(same.statusCode, 400);
  assert.equal(faultOf(same.body, 'new_password'), 'This is your current password: please choose a new one.');

  // Nothing refused changed anything: the password is the one it was.
  assert.equal((await new DashboardClient(t).signIn(owner.email, PASSWORD)).statusCode, 303);

  assert.equal((await client.submit('/account', '/account/language', { language: 'de' })).statusCode, 303);
  const german = await tryChange('nicht mein Passwort', NEW_PASSWORD, NEW_PASSWORD);
  assert.equal(faultOf(german.body, 'current_password'), 'Das ist nicht Ihr aktuelles Passwort.');
  assert.match(german.body, /<label for="new-password">Neues Passwort<\/label>/);
});

eachDatabase('a signed-out form or one without its CSRF token changes nothing', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  const fields = { current_password: PASSWORD, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD };
  assert.equal((await client.post('/account/password', fields)).statusCode, 403);
  const anonymous = new DashboardClient(t);
  const login = await anonymous.get('/login');
  const refused = await anonymous.post('/account/password', { ...fields, _csrf: /name="_csrf" value="([^"]+)"/.exec(login.body)![1]! });
  assert.equal(refused.statusCode, 303);
  assert.match(String(refused.headers.location), /^\/login/, 'signed out: on to sign-in, nothing changed');
  assert.equal((await new DashboardClient(t).signIn(owner.email, PASSWORD)).statusCode, 303);
});

eachDatabase('wrong current passwords count as failed sign-ins: the e-mail locks for both', async (t) => {
  const tree = await createTree(t);
  const owner = await createUser(t, tree.accountId, 'owner');
  const client = await signedIn(t, owner.email);
  for (let i = 0; i < 3; i += 1) {
    const wrong = await client.submit('/account', '/account/password', { current_password: `guess ${i} of the password`, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD });
    assert.equal(wrong.statusCode, 400);
  }
  const locked = await client.submit('/account', '/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD });
  assert.equal(locked.statusCode, 429, 'not even the right password changes it while locked');
  assert.equal(locked.headers['retry-after'], '900');
  assert.equal(faultOf(locked.body, 'current_password'), 'Too many wrong passwords. Try again in 15 min.');
  assert.equal((await new DashboardClient(t).signIn(owner.email, PASSWORD)).statusCode, 429, 'sign-in with this e-mail is locked as well');
}, { env: { LOGIN_EMAIL_FAILURE_LIMIT: '3' } });
