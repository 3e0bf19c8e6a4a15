// PrincipalCache: concurrent requests with one key share a single load; clear() forgets; the
// account's node count comes with a principal whose subtree may use either list shape; unknown
// keys are remembered apart, so they cost one lookup and never evict a valid key.
import assert from 'node:assert/strict';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { subtreeScope } from '../../src/access/principal.ts';
import { principalCache } from '../../src/modules/keys/service.ts';
import type { DB } from '../../src/db/schema.ts';
import { randomBytes } from 'node:crypto';
import { eachDatabase } from '../support/each-database.ts';
import { createTestApp, dialects, type TestApp } from '../support/app.ts';
import { test } from 'node:test';
import { createKey, createTree } from '../support/factories.ts';

/** A second Kysely over the test app's connection(s) that counts key lookups (reads: a resolve also notes the key's last use); never destroyed (it would close them). */
function countingDb(t: TestApp): { db: Kysely<DB>; lookups(): number } {
  let keyLookups = 0;
  const database = t.ctx.database;
  const db = new Kysely<DB>({
    dialect: database.dialect === 'sqlite' ? new SqliteDialect({ database: database.sqlite }) : new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^select/i.test(event.query.sql) && event.query.sql.includes('"api_keys"')) keyLookups++;
    },
  });
  return { db, lookups: () => keyLookups };
}

const madeUpKey = () => `rpt_${randomBytes(32).toString('base64url').slice(0, 43)}`;

eachDatabase('concurrent resolves of one key run one load; clear() makes the next resolve load again', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  const { db, lookups } = countingDb(t);
  const cache = principalCache(db);

  const principals = await Promise.all(Array.from({ length: 20 }, () => cache.resolve(key)));
  assert.equal(lookups(), 1);
  assert.ok(principals.every((p) => p === principals[0]));
  const principal = principals[0]!;
  assert.equal(principal.nodeId, tree.regions[0]);
  assert.deepEqual(new Set(principal.subtree), new Set([tree.regions[0], tree.properties[0], tree.properties[1]]));
  // A region of 3 nodes in an account of 6 may take either list shape, so the node count is known.
  assert.equal(subtreeScope(principal).accountNodes, 6);

  await cache.resolve(key);
  assert.equal(lookups(), 1);
  cache.clear();
  await cache.resolve(key);
  assert.equal(lookups(), 2);

  assert.equal(await cache.resolve(`rpt_${'x'.repeat(43)}`), null);
});

eachDatabase('an unknown key is looked up once, not again at every request (a flood of made-up keys stays off the database)', async (t) => {
  const { db, lookups } = countingDb(t);
  // A 1 ms TTL for valid keys: only the separate memory of unknown keys can spare the second lookup.
  const cache = principalCache(db, 1);
  const unknown = madeUpKey();
  assert.equal(await cache.resolve(unknown), null);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await cache.resolve(unknown), null);
  assert.equal(lookups(), 1);
});

eachDatabase('10,001 made-up keys do not push a valid key out of the cache', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const { db, lookups } = countingDb(t);
  const cache = principalCache(db, 600_000);
  assert.notEqual(await cache.resolve(key), null);
  for (let batch = 0; batch < 101; batch++) {
    await Promise.all(Array.from({ length: 100 }, () => cache.resolve(madeUpKey())));
  }
  await cache.resolve(madeUpKey());
  const before = lookups();
  assert.notEqual(await cache.resolve(key), null);
  assert.equal(lookups(), before, 'the valid key was answered from the cache');
});

// PostgreSQL only: SQLite has no read-only server to fail over to.
for (const dialect of dialects.filter((d) => d === 'postgres')) test('on a read-only PostgreSQL (a failover to a standby) a key still resolves: noting its last use is skipped, not a failure', async () => {
  const t = await createTestApp(dialect);
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root, ['reviews:read']);
  const pool = new pg.Pool({ connectionString: t.testDb.url, max: 1, options: `-c search_path=${t.testDb.schema} -c default_transaction_read_only=on` });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    const refused = await sql`update api_keys set last_used_at = null`.execute(db).then(() => null, (e: unknown) => e);
    assert.equal((refused as { code?: string } | null)?.code, '25006', 'the connection is read-only');
    const principal = await principalCache(db).resolve(key);
    assert.equal(principal?.nodeId, tree.root);
  } finally {
    await db.destroy();
    await t.close();
  }
});
