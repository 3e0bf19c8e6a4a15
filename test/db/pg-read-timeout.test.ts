// A PostgreSQL server that goes silent without closing its connections (a network partition, a
// frozen host): a statement fails after the read time-out as "unavailable" (503), its connection is
// discarded, and once the server answers again the pool works on fresh connections, unrestarted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { connect } from '../../src/db/connect.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { dialects, freshDatabase } from '../support/app.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

for (const dialect of dialects.filter((d) => d === 'postgres')) {
  test('a silent PostgreSQL: statements fail as unavailable within the read time-out, and work again once it answers', { timeout: 60_000 }, async () => {
    const target = await freshDatabase(dialect);
    const direct = new URL(target.url);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(target.url);
    viaProxy.port = String(proxy.port);
    const database = connect(viaProxy.toString(), { schema: target.schema!, poolSize: 3, queryTimeoutMs: 700 });
    const count = async () => Number((await sql<{ n: number }>`select count(*) as n from accounts where id <> ${'x'}`.execute(database.db)).rows[0]!.n);
    try {
      // Every connection of the pool open and idle, as on a server that has been serving.
      await Promise.all([count(), count(), count()]);

      proxy.mode('blackhole');
      for (let i = 0; i < 4; i++) {
        const started = Date.now();
        const error = await count().then(() => null, (e: unknown) => e);
        assert.ok(error !== null, 'a silent server cannot answer');
        assert.ok(isDatabaseUnavailable(error), `answered as unavailable (503), not as a fault: ${String(error)}`);
        assert.ok(Date.now() - started < 6000, `failed after ${Date.now() - started} ms`);
      }

      // In a transaction, the ROLLBACK after the time-out fails at once rather than waiting out a
      // time-out of its own behind the lost answer: one time-out in all, not two.
      const slowly = connect(viaProxy.toString(), { schema: target.schema!, poolSize: 1, queryTimeoutMs: 2500 });
      try {
        proxy.mode('forward');
        let started = 0;
        const error = await slowly.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx); // the transaction has begun
          proxy.mode('blackhole');
          started = Date.now();
          await sql`select 2`.execute(trx);
        }).then(() => null, (e: unknown) => e);
        const tookMs = Date.now() - started;
        assert.ok(isDatabaseUnavailable(error), String(error));
        assert.ok(tookMs < 4500, `a transaction on a silent server failed after ${tookMs} ms (two time-outs would be 5,000)`);
      } finally {
        await slowly.destroy().catch(() => {});
      }

      proxy.mode('forward');
      let answered = false;
      for (let i = 0; i < 10 && !answered; i++) answered = await count().then(() => true, () => false);
      assert.ok(answered, 'the pool works again without a restart');
      // And keeps working: no connection left waiting on an answer that will never come.
      for (let i = 0; i < 5; i++) assert.equal(typeof (await count()), 'number');
    } finally {
      await database.destroy().catch(() => {});
      await proxy.close();
      await target.drop();
    }
  });
}
