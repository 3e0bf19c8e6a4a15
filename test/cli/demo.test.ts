// `repute demo`: fresh demo data served by `--serve` (the printed curl answers with data, every printed
// key does its job), refusal to wipe an operator's data, and the same seed giving the same data.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Database } from '../../src/db/connect.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { eachDatabase } from '../support/each-database.ts';
import { freshDatabase } from '../support/app.ts';
import { createTree } from '../support/factories.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson, startCli } from './run.ts';
import { freePort } from '../support/ports.ts';

const KEY = /rpt_[A-Za-z0-9_-]{43}/g;

async function untilServing(child: ReturnType<typeof startCli>): Promise<string> {
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => { err += c; });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('Serving the API on')) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`demo exited ${code}: ${err}\n${out}`)));
  });
}

async function get(url: string, key: string): Promise<any> {
  const r = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(r.status, 200, `${url}: ${await r.clone().text()}`);
  return r.json();
}

eachDatabase('repute demo --serve: fresh data, one key per scope set, and the printed curl answers 200 with data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'repute-demo-'));
  const url = t.dialect === 'sqlite' ? `sqlite:${join(dir, 'data', 'repute.db')}` : cliDatabaseUrl(t.testDb);
  const port = await freePort();
  const child = startCli(['demo', '--serve', ...(t.dialect === 'postgres' ? ['--force'] : [])],
    cliEnv(url, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...(t.dialect === 'postgres' ? { MAIL_DIR: join(dir, 'mail') } : {}) }));
  let database: Database | null = null;
  try {
    const out = await untilServing(child);
    const base = `http://127.0.0.1:${port}/api/v4`;
    assert.ok(out.includes(`Base URL:  ${base}`), out);
    const keys = out.match(KEY)!;
    assert.equal(keys.length, 5); // four keys, the first once more in the curl line
    const curl = /curl -H "Authorization: Bearer (rpt_\S+)" "(\S+)"/.exec(out);
    assert.ok(curl, out);
    assert.equal(curl[2], `${base}/reviews?limit=2`);

    // The printed owner signs in to the dashboard served at the root.
    const owner = /Dashboard: (\S+)\s+sign in as (\S+) with the password (\S+)/.exec(out);
    assert.ok(owner, out);
    assert.equal(owner[1], `http://127.0.0.1:${port}/`);
    const form = await fetch(`http://127.0.0.1:${port}/login`);
    const csrfCookie = String(form.headers.get('set-cookie')).split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signIn = await fetch(`http://127.0.0.1:${port}/login`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: token, email: owner[2]!, password: owner[3]! }).toString(),
    });
    assert.equal(signIn.status, 303);
    assert.match(String(signIn.headers.get('set-cookie')), /repute_session=/);

    // The printed survey link opens the survey on this server; the e-mails are .eml files beside the database.
    const survey = /Survey:\s+(\S+)\n\s+a guest's invitation link; (\d+) invitation e-mails are in (\S+)\/\*\.eml/.exec(out);
    assert.ok(survey, out);
    assert.match(survey[1]!, new RegExp(`^http://127\\.0\\.0\\.1:${port}/s/[A-Za-z0-9_-]{43}$`));
    const surveyPage = await fetch(survey[1]!);
    assert.equal(surveyPage.status, 200);
    assert.match(await surveyPage.text(), /<legend>How likely are you to recommend us to a friend or colleague\?/);
    const emls = readdirSync(survey[3]!).filter((f) => f.endsWith('.eml'));
    assert.equal(emls.length, Number(survey[2]));
    assert.ok(emls.length >= 5, `${emls.length} e-mails`);
    const eml = readFileSync(join(survey[3]!, emls[0]!), 'utf8');
    assert.match(eml, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    assert.match(eml, /Content-Type: text\/html/);

    const page = await get(curl[2]!, curl[1]!);
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const [group, region, property, hooks] = keys as [string, string, string, string];
    const scores = await get(`${base}/analytics/scores`, group);
    assert.ok(scores.total_reviews >= 1900, JSON.stringify(scores));
    assert.deepEqual(scores.platform_scores.map((p: any) => p.platform).sort(), ['booking', 'expedia', 'google', 'tripadvisor']);
    assert.ok(scores.overall_score >= 3.5 && scores.overall_score <= 4.6, `ratings skew positive: ${scores.overall_score}`);
    assert.ok(scores.recommend_rate > 50 && scores.response_rate > 10, JSON.stringify(scores));
    assert.deepEqual((await get(`${base}/surveys`, group)).data.map((s: any) => s.name).sort(), ['Breakfast pulse', 'Post-stay survey']);
    assert.ok((await get(`${base}/insights/topics`, group)).data.length >= 6);
    assert.equal((await get(`${base}/insights/mentions?limit=100`, group)).data.length, 100);
    // Drawn by the insights engine from the demo's mentions: each names its figures and its topic.
    const recommendations = (await get(`${base}/insights/recommendations`, group)).data as any[];
    assert.ok(recommendations.length >= 1);
    for (const r of recommendations) {
      assert.match(r.body, /\d+ of \d+ mentions of .+ in the last 90 days are negative/);
      assert.ok(r.canonical_label_id);
    }

    const regionNodes = (await get(`${base}/nodes`, region)).data;
    assert.deepEqual(regionNodes.map((n: any) => n.type).sort(), ['property', 'property', 'property', 'region']);
    assert.ok((await get(`${base}/analytics/scores`, region)).total_reviews < scores.total_reviews);
    const guest = await fetch(`${base}/guests`, {
      method: 'POST', headers: { authorization: `Bearer ${property}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ana@example.com' }),
    });
    assert.equal(guest.status, 201, await guest.clone().text());
    assert.deepEqual((await get(`${base}/webhooks`, hooks)).data, []);

    database = t.dialect === 'sqlite' ? connect(url) : null;
    const db = (database ?? t.testDb.database).db;
    const reviews = await db.selectFrom('reviews').select(['language', 'platform', 'is_hidden', 'owner_reply', 'recommend', 'reviewed_at', 'rating', 'sentiment', 'sentiment_computed', 'text', 'title']).execute();
    assert.ok(reviews.length >= 2000);
    assert.deepEqual([...new Set(reviews.map((r) => r.language))].sort(), ['de', 'en', 'es', 'fr', 'it']);
    assert.ok(reviews.some((r) => r.is_hidden === 1) && reviews.some((r) => r.owner_reply !== null) && reviews.some((r) => r.recommend !== null));
    const oldest = reviews.map((r) => r.reviewed_at).sort()[0]!;
    assert.ok(Date.now() - Date.parse(oldest) > 600 * 86_400_000, `spread over two years, oldest ${oldest}`);
    // The demo gives no sentiment: the insights engine computed one for every review with words,
    // and it mostly agrees with the stars the guest gave.
    const worded = reviews.filter((r) => r.text !== null || r.title !== null);
    assert.ok(worded.every((r) => r.sentiment !== null && r.sentiment_computed === 1));
    assert.ok(reviews.filter((r) => r.text === null && r.title === null).every((r) => r.sentiment === null));
    const happy = worded.filter((r) => r.rating! >= 4.5);
    const agree = happy.filter((r) => r.sentiment === 'positive').length / happy.length;
    assert.ok(agree > 0.7, `computed sentiment of 5-star reviews positive in ${Math.round(agree * 100)} %`);
    const responses = await db.selectFrom('survey_responses').select(['status']).execute();
    assert.ok(responses.length >= 300);
    assert.ok(responses.some((r) => r.status === 'started'));
    assert.ok((await db.selectFrom('survey_answers').select('question_type').distinct().execute()).length >= 3);
    assert.equal((await db.selectFrom('surveys').select('id').where('status', '=', 'draft').execute()).length, 1);
    assert.equal((await db.selectFrom('alert_rules').select('id').execute()).length, 1);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve)));
    await database?.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});

eachDatabase('repute demo refuses to wipe data that is not demo data', async (t) => {
  if (t.dialect === 'postgres') {
    const tree = await createTree(t);
    const r = await repute(['demo'], cliEnv(cliDatabaseUrl(t.testDb)));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^repute: DATABASE_URL is PostgreSQL.*--force/);
    assert.equal((await t.ctx.db.selectFrom('accounts').select('id').where('id', '=', tree.accountId).execute()).length, 1);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'repute-demo-'));
  try {
    const env = cliEnv(`sqlite:${join(dir, 'repute.db')}`);
    const account = await reputeJson(['accounts', 'create', '--name', 'Real Hotels'], env);
    const r = await repute(['demo'], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^repute: .*repute\.db holds 1 account\(s\) that are not demo data \(e\.g\. "Real Hotels"\).*--force/);
    const database = connect(env.DATABASE_URL!);
    try {
      assert.deepEqual((await database.db.selectFrom('accounts').select('id').execute()).map((a) => a.id), [account.id]);
    } finally {
      await database.destroy();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

eachDatabase('the demo generator gives the same data for the same seed, with review_stats matching the reviews', async (t) => {
  const now = new Date('2026-11-22T12:00:00Z');
  const other = await freshDatabase(t.dialect);
  try {
    await generateDemo(t.testDb.database, 7, now);
    await generateDemo(other.database, 7, now);
    const snapshot = async (database: Database) => ({
      reviews: await database.db.selectFrom('reviews')
        .select(['platform', 'external_id', 'rating', 'title', 'text', 'language', 'reviewed_at', 'is_hidden', 'owner_reply', 'recommend'])
        .orderBy('external_id').execute(),
      mentions: (await database.db.selectFrom('mentions').select(['text', 'sentiment', 'confidence']).execute())
        .map((m) => JSON.stringify(m)).sort(),
      responses: (await database.db.selectFrom('survey_responses').select(['status', 'overall_score', 'started_at', 'completed_at']).execute())
        .map((r) => JSON.stringify(r)).sort(),
    });
    const a = await snapshot(t.testDb.database);
    assert.deepEqual(await snapshot(other.database), a);
    assert.ok(a.reviews.length >= 2000 && a.responses.length >= 300);

    const visible = a.reviews.filter((r) => r.is_hidden === 0).length;
    const stats = await t.ctx.db.selectFrom('review_stats').select(['reviews']).execute();
    assert.equal(stats.reduce((s, r) => s + r.reviews, 0), visible);
    const monthly = await t.ctx.db.selectFrom('review_monthly_stats').select(['reviews']).execute();
    assert.equal(monthly.reduce((s, r) => s + r.reviews, 0), visible, 'the monthly aggregates count every visible review once');
    const received = await t.ctx.db.selectFrom('events').select('id').where('type', '=', 'review.received').execute();
    assert.equal(received.length, a.reviews.length);
  } finally {
    await other.drop();
  }
});
