// `repute import` when lines or runs go wrong: bad lines among good ones in one batch reject only
// themselves; a file imported twice, or killed with SIGKILL and run again, leaves what one run leaves.
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { type CliResult, cliDatabaseUrl, cliEnv, repute, startCli } from './run.ts';
import { mixedFile, ndjson, tempFile } from './import-files.ts';

/** line number → reason, from the "line N: reason" lines on stderr (progress lines skipped). */
function rejections(r: CliResult): Map<number, string> {
  return new Map(r.stderr.split('\n').flatMap((l) => {
    const m = /^line (\d+): (.*)$/.exec(l);
    return m ? [[Number(m[1]), m[2]!] as [number, string]] : [];
  }));
}

eachDatabase('repute import: bad dates and bad JSON in a batch reject only their own lines, with their numbers', async (t) => {
  const tree = await createTree(t);
  const review = (n: number, body: object = {}) => ({
    type: 'review', account_id: tree.accountId, node_id: tree.properties[n % 3], platform: 'google', external_id: `b-${n}`,
    reviewed_at: `2026-03-${String(n).padStart(2, '0')}T10:00:00Z`, rating: 4, ...body,
  });
  const survey = { type: 'survey', account_id: tree.accountId, node_id: tree.root, name: 'Leap survey', definition: { pages: [] }, status: 'draft' };
  const file = tempFile(ndjson([
    /* 1 */ review(1),
    /* 2 */ review(2),
    /* 3 */ review(3, { reviewed_at: '2016-12-31T23:59:60Z' }), // a leap second: no instant JavaScript can store
    /* 4 */ review(4),
    /* 5 */ '{"type":"review","account_id":"' + tree.accountId + '",',
    /* 6 */ review(6),
    /* 7 */ review(7, { replied_at: '2026-02-30T10:00:00Z', owner_reply: 'Thanks' }),
    /* 8 */ review(8),
    /* 9 */ review(9, { text: 'a NUL \u0000 where PostgreSQL cannot store one' }),
    /* 10 */ review(10),
    /* 11 */ review(11),
    /* 12 */ review(12),
    /* 13 */ { ...survey, created_at: '2016-12-31T23:59:60Z' },
    /* 14 */ survey,
  ]));
  try {
    const r = await repute(['import', file.path, '--json'], cliEnv(cliDatabaseUrl(t.testDb)));
    assert.equal(r.code, 0, r.stderr); // the README: 0 when the file was read to its end, rejected lines or not
    const summary = JSON.parse(r.stdout);
    const reasons = rejections(r);
    // PostgreSQL refuses the NUL (line 9); SQLite stores it, unless validation refuses it on both.
    const nulRejected = reasons.has(9);
    const rejected = [3, 5, 7, ...(nulRejected ? [9] : []), 13];
    assert.deepEqual(summary.rejected_lines, rejected);
    assert.deepEqual([...reasons.keys()], rejected);
    assert.match(reasons.get(3)!, /2016-12-31T23:59:60Z|reviewed_at/);
    assert.match(reasons.get(5)!, /not valid JSON/);
    assert.match(reasons.get(7)!, /replied_at/);
    assert.match(reasons.get(13)!, /2016-12-31T23:59:60Z|created_at/);
    if (t.dialect === 'postgres') assert.ok(nulRejected, 'PostgreSQL cannot store NUL in text');
    const good = [1, 2, 4, 6, 8, ...(nulRejected ? [] : [9]), 10, 11, 12];
    assert.equal(summary.created.review, good.length);
    assert.equal(summary.created.survey, 1);
    const stored = await t.ctx.db.selectFrom('reviews').select('external_id').where('account_id', '=', tree.accountId).orderBy('external_id').execute();
    assert.deepEqual(stored.map((s) => s.external_id), good.map((n) => `b-${n}`).sort());
    const surveys = await t.ctx.db.selectFrom('surveys').select('name').where('account_id', '=', tree.accountId).execute();
    assert.deepEqual(surveys.map((s) => s.name), ['Leap survey']);
  } finally {
    file.remove();
  }
});

const STAMPS = new Set(['id', 'account_id', 'import_key', 'created_at', 'updated_at']);

/**
 * Everything the import wrote for an account, with ids replaced by what they name and the write times left
 * out, each table's rows sorted: two accounts given the same file compare equal when they hold the same data.
 */
async function snapshot(db: Kysely<DB>, accountId: string): Promise<Record<string, unknown>> {
  const names = new Map<string, string>();
  const content = (row: Record<string, unknown>) => JSON.stringify(Object.entries(row).filter(([k]) => !STAMPS.has(k))
    .map(([k, v]) => [k, typeof v === 'string' && names.has(v) ? names.get(v) : v]));
  const named = (rows: Array<Record<string, unknown> & { id: string }>, name: (r: any) => string) => {
    for (const r of rows) names.set(r.id, name(r));
    return rows.map(content).sort();
  };
  const of = (table: 'nodes' | 'topics' | 'reviews' | 'surveys' | 'survey_responses' | 'mentions' | 'recommendations') =>
    db.selectFrom(table as 'nodes').selectAll().where('account_id', '=', accountId).orderBy('id').execute() as Promise<any[]>;
  named(await of('nodes'), (r) => `node ${r.name}`);
  const topics = await of('topics');
  const snap: Record<string, unknown> = {};
  // Parents before children, so a child's parent_label_id is already a name.
  snap.topics = named(topics.sort((x, y) => Number(x.parent_label_id !== null) - Number(y.parent_label_id !== null)), (r) => `topic ${r.name}`);
  snap.reviews = named(await of('reviews'), (r) => `review ${r.platform}/${r.external_id}`);
  snap.surveys = named(await of('surveys'), (r) => `survey ${r.name}`);
  snap.responses = named(await of('survey_responses'), content);
  snap.answers = (await db.selectFrom('survey_answers').innerJoin('survey_responses as r', 'r.id', 'survey_answers.response_id')
    .selectAll('survey_answers').where('r.account_id', '=', accountId).execute()).map(content).sort();
  snap.mentions = named(await of('mentions'), content);
  snap.recommendations = named(await of('recommendations'), content);
  snap.review_stats = (await db.selectFrom('review_stats').innerJoin('nodes', 'nodes.id', 'review_stats.node_id')
    .selectAll('review_stats').where('nodes.account_id', '=', accountId).execute()).map(content).sort();
  snap.events = (await db.selectFrom('events').select('type').where('account_id', '=', accountId).execute()).map((e) => e.type).sort();
  return snap;
}

async function counts(t: TestApp, accountId: string): Promise<Record<string, number>> {
  const snap = await snapshot(t.ctx.db, accountId);
  return Object.fromEntries(Object.entries(snap).map(([k, v]) => [k, (v as unknown[]).length]));
}

eachDatabase('repute import: a run killed with SIGKILL and run again leaves what one clean run leaves; a third run changes nothing', async (t) => {
  const REVIEWS = 2500;
  const crashed = await createTree(t);
  const clean = await createTree(t, { name: 'Clean run' });
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const crashedFile = tempFile(mixedFile(crashed, REVIEWS));
  const cleanFile = tempFile(mixedFile(clean, REVIEWS));
  try {
    // Small batches, so the kill lands between committed batches and inside others.
    const child = startCli(['import', crashedFile.path, '--batch-size', '50'], env);
    let stderr = '';
    child.stderr!.on('data', (c) => { stderr += c; });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const reviews = () => t.ctx.db.selectFrom('reviews').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', crashed.accountId).executeTakeFirstOrThrow();
    const deadline = Date.now() + 120_000;
    while (Number((await reviews()).n) < REVIEWS / 5) {
      assert.ok(Date.now() < deadline, `the import made no progress: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const partial = Number((await reviews()).n);
    assert.ok(partial < REVIEWS, `killed before the end (${partial} of ${REVIEWS} reviews in)`);

    const rerun = await repute(['import', crashedFile.path, '--batch-size', '50', '--json'], env);
    assert.equal(rerun.code, 0, rerun.stderr);
    const once = await repute(['import', cleanFile.path, '--batch-size', '50', '--json'], env);
    assert.equal(once.code, 0, once.stderr);
    assert.deepEqual(JSON.parse(once.stdout).rejected_lines, []);

    const expected = { topics: 5, reviews: REVIEWS, surveys: 1, responses: REVIEWS / 25, answers: REVIEWS / 25, mentions: REVIEWS / 10, recommendations: REVIEWS / 100 };
    // review_stats: 3 properties × 2 platforms; events: review.received and survey.response_completed.
    assert.deepEqual(await counts(t, clean.accountId), { ...expected, review_stats: 6, events: REVIEWS + REVIEWS / 25 });
    assert.deepEqual(await snapshot(t.ctx.db, crashed.accountId), await snapshot(t.ctx.db, clean.accountId));

    // The whole file again: every record is found by its identity, reviews are updated in place.
    const third = JSON.parse((await repute(['import', cleanFile.path, '--json'], env)).stdout);
    assert.deepEqual(third.created, { review: 0, survey: 0, response: 0, topic: 0, mention: 0, recommendation: 0 });
    assert.deepEqual(third.unchanged, { review: 0, survey: 1, response: REVIEWS / 25, topic: 5, mention: REVIEWS / 10, recommendation: REVIEWS / 100 });
    assert.equal(third.updated.review, REVIEWS);
    assert.deepEqual(await snapshot(t.ctx.db, clean.accountId), await snapshot(t.ctx.db, crashed.accountId));
  } finally {
    crashedFile.remove();
    cleanFile.remove();
  }
});
