// SQLite held locked by another process for longer than the busy time-out (an import, a backup
// tool, a stuck sqlite3 shell): writes answer 503 with Retry-After, not 500, and work again once
// the lock is gone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { createTestApp } from '../support/app.ts';
import { createKey, createTree } from '../support/factories.ts';
import { assertUnavailable } from '../support/repute-processes.ts';
import { sqlitePath } from '../../src/config.ts';

test('a SQLite file locked past the busy time-out: a push answers 503 with Retry-After, and succeeds once the lock is released [sqlite]', { timeout: 60_000 }, async () => {
  const t = await createTestApp('sqlite');
  const other = new SQLite(sqlitePath(t.testDb.url));
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['guests:write']);
    const push = () => t.api(key, 'POST', '/guests', { email: 'ann.lee@example.com', property_id: tree.properties[0] });
    other.prepare('begin immediate').run();
    const r = await push();
    assertUnavailable({ status: r.statusCode, retryAfter: r.headers['retry-after'] as string | undefined, body: r.body });
    other.prepare('rollback').run();
    const again = await push();
    assert.equal(again.statusCode, 201, again.body);
  } finally {
    if (other.inTransaction) other.prepare('rollback').run();
    other.close();
    await t.close();
  }
});
