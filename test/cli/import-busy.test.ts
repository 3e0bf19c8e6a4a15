// `repute import` beside a running `repute serve` on the same database taking a few hundred writes a
// second (paced at 300/s; what a shared test machine manages is printed): the import finishes with every line in
// and no "database is locked", the server's writes all succeed, and the two take turns all along.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase } from '../support/each-database.ts';
import { ADMIN_TOKEN } from '../support/app.ts';
import { createTree } from '../support/factories.ts';
import { freePort } from '../support/ports.ts';
import { mixedFile, tempFile } from './import-files.ts';
import { cliDatabaseUrl, cliEnv, repute, startCli } from './run.ts';

const TARGET_PER_S = 300;
const CONNECTIONS = 8;
/** The import writes its 3,000 reviews in about 300 transactions (each mention line ends a batch of reviews). */
const MIN_TURNS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

eachDatabase('repute import beside a busy server on the same database: every line in, no "database is locked", no failed server write', async (t, tc) => {
  const REVIEWS = 3000;
  const tree = await createTree(t);
  const port = await freePort();
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const server = startCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1', REPUTE_ADMIN_TOKEN: ADMIN_TOKEN, REPUTE_WORKER: 'off' });
  let serverOutput = '';
  server.stdout!.on('data', (c) => { serverOutput += c; });
  server.stderr!.on('data', (c) => { serverOutput += c; });
  const file = tempFile(mixedFile(tree, REVIEWS));
  let running = true;
  const statuses = new Map<string, number>();
  let sent = 0;
  let answered = 0;
  const answeredAt: number[] = [];
  try {
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    while (!(await fetch(`${base}/healthz`).then((r) => r.ok, () => false))) {
      assert.ok(Date.now() < deadline, `the server did not start: ${serverOutput}`);
      await sleep(100);
    }
    // Review writes to the same properties (the same review_stats rows), paced at TARGET_PER_S over a few
    // connections, for as long as the import runs (and at most 5 minutes).
    const started = Date.now();
    const writer = async () => {
      while (running && Date.now() - started < 300_000) {
        const n = sent++;
        const due = started + (n * 1000) / TARGET_PER_S;
        if (due > Date.now()) await sleep(due - Date.now());
        const status = await fetch(`${base}/admin/v1/accounts/${tree.accountId}/reviews`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ node_id: tree.properties[n % 3], platform: 'google', external_id: `live-${n}`, reviewed_at: '2026-06-01T10:00:00Z', rating: 1 + (n % 5) }),
        }).then((r) => String(r.status), (error: Error) => error.message);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        answered += 1;
        answeredAt.push(Date.now());
      }
    };
    const writers = Array.from({ length: CONNECTIONS }, writer);
    await sleep(2000); // the load is up before the import starts
    const alone = Math.round(answered / ((Date.now() - started) / 1000));

    const importStarted = Date.now();
    const answeredBefore = answered;
    const r = await repute(['import', file.path, '--json'], env);
    const importEnded = Date.now();
    const seconds = (importEnded - importStarted) / 1000;
    const rate = Math.round((answered - answeredBefore) / seconds);
    running = false;
    await Promise.all(writers);
    tc.diagnostic(`server alone ${alone} writes/s; import ${seconds.toFixed(1)} s beside ${rate} server writes/s; server answers ${JSON.stringify(Object.fromEntries(statuses))}`);

    assert.doesNotMatch(r.stderr, /database is locked|SQLITE_BUSY/);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.rejected_lines, []);
    assert.deepEqual(summary.created, { review: REVIEWS, survey: 1, response: REVIEWS / 25, topic: 5, mention: REVIEWS / 10, recommendation: REVIEWS / 100 });
    const stored = await t.ctx.db.selectFrom('reviews').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', tree.accountId).where('external_id', 'like', 'k-%').executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), REVIEWS);
    // The two took turns all along: in the order the rows were written (SQLite's rowid; on PostgreSQL the
    // writing transaction's id), server writes sit between the import's transactions again and again, so
    // the import never held the database for long. Counted in turns, not seconds, so a slow or busy
    // machine does not change the verdict.
    const order = t.dialect === 'sqlite' ? sql`rowid` : sql`xmin::text::bigint`;
    const written = await sql<{ external_id: string }>`select external_id from reviews where account_id = ${tree.accountId} order by ${order}`.execute(t.ctx.db);
    let turns = 0;
    written.rows.forEach((row, i) => {
      if (i > 0 && row.external_id.startsWith('k-') && written.rows[i - 1]!.external_id.startsWith('live-')) turns += 1;
    });
    const during = [importStarted, ...answeredAt.filter((at) => at > importStarted && at < importEnded), importEnded];
    const longestWait = Math.max(...during.slice(1).map((at, i) => at - during[i]!));
    tc.diagnostic(`import resumed after a server write ${turns} times; longest time without a server answer during the import ${longestWait} ms`);
    assert.ok(turns >= MIN_TURNS, `the import resumed after a server write only ${turns} times`);
    assert.deepEqual([...statuses.keys()], ['201'], 'every server write succeeded');
    const live = await t.ctx.db.selectFrom('reviews').select((eb) => eb.fn.countAll<number>().as('n')).where('external_id', 'like', 'live-%').executeTakeFirstOrThrow();
    assert.equal(Number(live.n), statuses.get('201'));
    assert.doesNotMatch(serverOutput, /database is locked|SQLITE_BUSY/);
  } finally {
    running = false;
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('close', resolve));
    file.remove();
  }
});
