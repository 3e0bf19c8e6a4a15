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

test('the SQLite WAL shrinks back after a burst of large writes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'repute-checkpoint-'));
  const path = join(dir, 'db.sqlite');
  const database = connect(`sqlite:${path}`);
  try {
    if (database.dialect !== 'sqlite') throw new Error('a sqlite: URL opens SQLite');
    const sqlite = database.sqlite;
    sqlite.exec('create table filler (id integer primary key, body text not null)');
    const insert = sqlite.prepare('insert into filler (body) values (?)');
    const update = sqlite.prepare('update filler set body = ? where id = ?');
    sqlite.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000));
    })();
    // A burst of large rewrites in small transactions, as pushes make: the WAL grows past 10 MB.
    let peak = 0;
    for (let round = 0; round < 12; round++) {
      sqlite.transaction(() => {
        for (let i = 1; i <= 2000; i++) update.run(`${round}`.repeat(1000), i);
      })();
      peak = Math.max(peak, statSync(`${path}-wal`).size);
    }
    assert.ok(peak > 10_000_000, `the burst filled the WAL (${peak} bytes)`);
    const deadline = Date.now() + 10_000;
    while (statSync(`${path}-wal`).size > 1_000_000) {
      assert.ok(Date.now() < deadline, `the WAL is still ${statSync(`${path}-wal`).size} bytes 10 s after the burst`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(sqlite.prepare('select count(*) from filler where body = ?').pluck().get('11'.repeat(1000)), 2000, 'the last round is kept');
  } finally {
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
