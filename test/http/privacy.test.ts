// Personal data stays out of places an erasure cannot reach or other users can read: query values
// (an admin lookup's ?email=…) are not logged, and the SQLite file, its -wal/-shm, its folder and the
// generated secret key are the owner's only.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { connect } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { buildApp, fastifyOptions } from '../../src/app.ts';
import { createContext } from '../../src/context.ts';
import { ADMIN_TOKEN, dialects, freshDatabase, testEnv, type TestApp } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';

for (const dialect of dialects) {
  test(`request logs carry no query value that may be personal data (an admin guest lookup's e-mail), nor a guest's token [${dialect}]`, async () => {
    const db = await freshDatabase(dialect);
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const ctx = createContext(loadConfig(testEnv(db, { LOG_LEVEL: 'info' })), db.database);
    const app = await buildApp(ctx, fastifyOptions('info', stream));
    await app.ready();
    const t = { app, ctx, admin: (m: string, p: string, b?: unknown) => app.inject({ method: m as 'POST', url: `/admin/v1${p}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: b as object }) };
    try {
      const tree = await createTree(t as unknown as TestApp);
      const key = await createKey(t as unknown as TestApp, tree.accountId, tree.root, ['reviews:read']);
      lines.length = 0;
      const email = 'ann.lee%40example.com';
      const lookup = `/admin/v1/accounts/${tree.accountId}/guests?property_id=${tree.properties[0]}&email=${email}`;
      const r = await app.inject({ method: 'GET', url: lookup, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(r.statusCode, 404, r.body);
      // Also when the request is refused before any route (a typo'd name is logged by name only).
      await app.inject({ method: 'GET', url: `/admin/v1/accounts/${tree.accountId}/guests?emial=${email}` });
      await app.inject({ method: 'GET', url: '/api/v4/reviews?limit=2', headers: { authorization: `Bearer ${key}` } });
      // A guest's survey and unsubscribe tokens: whoever reads them could answer or unsubscribe for the guest.
      for (const url of ['/s/GuestSurveyToken_abc123', '/u/GuestUnsubscribeToken_def456?lang=de', `/s/public/${tree.root}?node=${tree.properties[0]}`]) {
        await app.inject({ method: 'GET', url });
      }

      const text = lines.join('');
      assert.ok(!/ann\.lee|ann%2Elee|example\.com/i.test(text), 'the e-mail address is not in the log');
      const urls = lines.map((l) => JSON.parse(l)).filter((e) => e.req?.url).map((e) => e.req.url as string);
      assert.ok(urls.includes(`/admin/v1/accounts/${tree.accountId}/guests?property_id=…&email=…`), urls.join('\n'));
      assert.ok(urls.includes(`/admin/v1/accounts/${tree.accountId}/guests?emial=…`), urls.join('\n'));
      // Paging parameters carry no personal data and stay readable.
      assert.ok(urls.includes('/api/v4/reviews?limit=2'), urls.join('\n'));
      assert.ok(!/GuestSurveyToken|GuestUnsubscribeToken/.test(text), 'no guest token is in the log');
      assert.ok(urls.includes('/s/…'), urls.join('\n'));
      assert.ok(urls.includes('/u/…?lang=…'), urls.join('\n'));
      assert.ok(urls.includes(`/s/public/${tree.root}?node=…`), urls.join('\n'));
    } finally {
      await app.close();
      await ctx.rateLimits.close();
      await db.drop().catch(() => {});
    }
  });
}

test('the SQLite file, its -wal and -shm, the folder made for it and the generated secret key are owner-only', async () => {
  const root = mkdtempSync(join(tmpdir(), 'repute-modes-'));
  const folder = join(root, 'var', 'data');
  const url = `sqlite:${join(folder, 'repute.db')}`;
  // No REPUTE_SECRET_KEY: one is generated into secret.key beside the database.
  const config = loadConfig({ DATABASE_URL: url });
  const database = connect(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    assert.equal(mode(join(root, 'var')), '700');
    assert.equal(mode(folder), '700');
    for (const file of ['repute.db', 'repute.db-wal', 'repute.db-shm', 'secret.key']) assert.equal(mode(join(folder, file)), '600', file);
  } finally {
    await database.destroy();
    rmSync(root, { recursive: true, force: true });
  }
});
