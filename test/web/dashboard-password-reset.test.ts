// "Forgot your password?" on the sign-in page, on both databases, with a real SMTP server: the link
// arrives by e-mail, chooses a new password once, ends every session; asking tells nobody whether a
// user has the e-mail; without a way to send mail the page says whom to ask.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, dialects } from '../support/app.ts';
import { createTree } from '../support/factories.ts';
import { createUser, csrfOf, DashboardClient, PASSWORD, signedIn } from '../support/dashboard.ts';
import { startMailSink } from '../support/mail-sink.ts';
import { sleep } from '../webhooks/helpers.ts';

const NEW_PASSWORD = 'breakfast on the terrace at nine';

/** The reset link of a received e-mail's text. */
const linkOf = (text: string): string => {
  const match = /(http:\/\/\S+\/login\/reset\/[A-Za-z0-9_-]{43})/.exec(text);
  assert.ok(match, `a reset link in: ${text}`);
  return match[1]!;
};

for (const dialect of dialects) {
  test(`a forgotten password: the e-mailed link sets a new one once, and ends every session [${dialect}]`, async () => {
    const sink = await startMailSink();
    const t = await createTestApp(dialect, { env: { SMTP_URL: sink.url, MAIL_FROM: 'Repute <no-reply@hotel.example>' } });
    try {
      const tree = await createTree(t);
      const gm = await createUser(t, tree.accountId, 'manager', tree.properties[0]);
      const phone = await signedIn(t, gm.email);

      const client = new DashboardClient(t);
      const login = await client.get('/login');
      assert.match(login.body, /<a href="\/login\/forgot">Forgot your password\?<\/a>/);
      const form = await client.get('/login/forgot');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<label for="email">Email<\/label>/);
      const asked = await client.post('/login/forgot', { _csrf: csrfOf(form.body), email: gm.email.toUpperCase() });
      assert.equal(asked.statusCode, 200);
      assert.match(asked.body, /a link to choose a new password is on its way there/);

      const [mail] = await sink.waitFor(1);
      assert.equal(mail!.to, gm.email);
      assert.equal(mail!.parsed.subject, 'Choose a new password for Repute');
      const link = linkOf(mail!.parsed.text ?? '');
      const path = new URL(link).pathname;
      assert.equal(new URL(link).origin, t.config.publicUrl);

      const page = await client.get(path);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes(`For ${gm.email}.`));
      const short = await client.post(path, { _csrf: csrfOf(page.body), new_password: 'short', repeat_password: 'short' });
      assert.equal(short.statusCode, 400);
      assert.match(short.body, /id="new_password-fault">Please use 12 to 1024 characters\.</);
      const differ = await client.post(path, { _csrf: csrfOf(page.body), new_password: NEW_PASSWORD, repeat_password: 'something else entirely' });
      assert.match(differ.body, /id="repeat_password-fault">The two new passwords differ/);

      const done = await client.post(path, { _csrf: csrfOf(page.body), new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/login?reset=1');
      assert.match((await client.get('/login?reset=1')).body, /Your new password is set\. Sign in with it\./);
      assert.equal((await phone.get('/')).statusCode, 303, 'the session signed in with the old password ended');
      assert.equal((await new DashboardClient(t).signIn(gm.email, PASSWORD)).statusCode, 401);
      assert.equal((await new DashboardClient(t).signIn(gm.email, NEW_PASSWORD)).statusCode, 303);

      // Used once: the same link again is dead, and says how to get a new one.
      const again = await client.get(path);
      assert.equal(again.statusCode, 404);
      assert.match(again.body, /This link does not work \(any more\)/);
      assert.match(again.body, /href="\/login\/forgot"/);
      const replay = await client.post(path, { _csrf: csrfOf(form.body), new_password: 'yet another long password', repeat_password: 'yet another long password' });
      assert.equal(replay.statusCode, 404);
      assert.equal((await new DashboardClient(t).signIn(gm.email, NEW_PASSWORD)).statusCode, 303, 'the replay changed nothing');
      assert.equal((await client.get('/login/reset/not-a-token')).statusCode, 404);
    } finally {
      await t.close();
      await sink.close();
    }
  });
}

test('asking tells nobody whether a user has the e-mail; an e-mail gets 3 links an hour; a new password ends older links', async () => {
  const sink = await startMailSink();
  const t = await createTestApp('sqlite', { env: { SMTP_URL: sink.url } });
  try {
    const tree = await createTree(t);
    const owner = await createUser(t, tree.accountId, 'owner');
    const ask = async (email: string) => {
      const client = new DashboardClient(t);
      const form = await client.get('/login/forgot');
      return client.post('/login/forgot', { _csrf: csrfOf(form.body), email });
    };
    const unknown = await ask('nobody@hotel.example');
    const known = await ask(owner.email);
    assert.equal(unknown.statusCode, known.statusCode);
    const same = (body: string, email: string) => body.replaceAll(email, '…').replace(/name="_csrf" value="[^"]+"/g, '');
    assert.equal(same(unknown.body, 'nobody@hotel.example'), same(known.body, owner.email));
    for (let i = 0; i < 3; i += 1) assert.equal((await ask(owner.email)).statusCode, 200);
    await sleep(300);
    await sink.waitFor(3);
    await sleep(200);
    assert.equal(sink.mails.length, 3, 'three links within the hour, the rest not sent (and not said)');
    assert.ok(sink.mails.every((m) => m.to === owner.email));

    // A password changed another way (here: the user's own, signed in) ends every link still unused.
    const first = new URL(linkOf(sink.mails[0]!.parsed.text ?? '')).pathname;
    const client = await signedIn(t, owner.email);
    assert.equal((await client.submit('/account', '/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD })).statusCode, 303);
    assert.equal((await new DashboardClient(t).get(first)).statusCode, 404);
  } finally {
    await t.close();
    await sink.close();
  }
});

test('without SMTP_URL or MAIL_DIR the page says no link can be sent, and whom to ask', async () => {
  const t = await createTestApp('sqlite');
  try {
    const client = new DashboardClient(t);
    const page = await client.get('/login/forgot');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /This server sends no e-mail, so it cannot send you a link\./);
    assert.doesNotMatch(page.body, /<form method="post" action="\/login\/forgot"/);
  } finally {
    await t.close();
  }
});
