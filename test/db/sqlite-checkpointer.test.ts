// The embedded database's WAL is copied into the database file by a background thread, not by the
// commits of the request thread: writes reach the database file while the main connection never
// checkpoints, and closing the database leaves no WAL behind.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from '../../src/db/connect.ts';
import { sqliteOf } from '../support/app.ts';

test('committed pages reach the SQLite database file in the background, and close leaves no WAL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'repute-checkpoint-'));
  const path = join(dir, 'db.sqlite');
  const database = connect(`sqlite:${path}`);
  try {
    const sqlite = sqliteOf(database);
    assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0, 'the request thread does not checkpoint');
    sqlite.exec('create table filler (id integer primary key, body text not null)');
    const before = statSync(path).size;
    const insert = sqlite.prepare('insert into filler (body) values (?)');
    sqlite.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000));
    })();
    // About 2 MB is now in the WAL only; the database file grows once the worker has copied it.
    const deadline = Date.now() + 10_000;
    while (statSync(path).size < before + 1_000_000) {
      assert.ok(Date.now() < deadline, 'the database file did not grow within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await database.destroy();
  }
  assert.equal(existsSync(`${path}-wal`), false, 'the WAL is gone after close');
  const reopened = connect(`sqlite:${path}`);
  try {
    assert.equal(sqliteOf(reopened).prepare('select count(*) from filler').pluck().get(), 2000);
  } finally {
    await reopened.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
