// Benchmark: survey invitations (issue 11's figures), on SQLite and, with TEST_DATABASE_URL, PostgreSQL.
//  1. N stays checked out at once (default 100,000) → one worker (planner + sender, in this process)
//     delivers every invitation to a local SMTP sink; none twice. Baseline in the same run: a plain
//     nodemailer loop sending N messages of the same size and headers through the same pooled
//     transport (5 connections, 5 in flight) to the same sink. Target: worker ≥ 0.5 × baseline.
//  2. The survey page GET /s/<token> (an opened invitation): server time p50/p99 over 2,000 requests
//     (Fastify's inject: no network), and the page's weight with its stylesheets. Targets: p50 ≤ 5 ms,
//     ≤ 50 KB.
//  3. `repute worker` killed with SIGKILL during a run of 10,000 invitations, then started again:
//     every invitation delivered, duplicates at most the batches the killed worker held (2 × 100).
//   node --import tsx bench/invitations.ts [--stays 100000] [--kill-stays 10000] [--db sqlite|postgres|both]
// Loopback only; exits non-zero when an invitation is lost or sent twice beyond the bound.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { Dialect } from '../src/db/connect.ts';
import { createMailer, SMTP_CONNECTIONS } from '../src/mail/transport.ts';
import { invitationMessage } from '../src/modules/invitations/mail.ts';
import { newPlannerState, planInvitations } from '../src/modules/invitations/planner.ts';
import { DEFAULT_BATCH, sendAllDue } from '../src/modules/invitations/sender.ts';
import { invitationToken } from '../src/modules/invitations/tokens.ts';
import { ASSETS_DIR } from '../src/web/locations.ts';
import { cliDatabaseUrl, cliEnv } from '../test/cli/run.ts';
import type { TestApp } from '../test/support/app.ts';
import { benchApp, onInterrupt } from './support/interrupt.ts';
import { createTree } from '../test/support/factories.ts';
import { spawnRepute, stopRepute } from '../test/support/repute-processes.ts';
import { DEFINITION, seedCheckedOutStays } from '../test/support/surveys.ts';

const { values: args } = parseArgs({
  options: { stays: { type: 'string', default: '100000' }, 'kill-stays': { type: 'string', default: '10000' }, db: { type: 'string', default: 'both' } },
});
const STAYS = Number(args.stays);
const KILL_STAYS = Number(args['kill-stays']);
const dialects: Dialect[] = args.db === 'both' ? (process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) : [args.db as Dialect];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** What one worker holds at once: two batches (sendAllDue's lanes). */
const IN_FLIGHT = 2 * DEFAULT_BATCH;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An SMTP sink that only counts: every accepted message's Message-ID (read from its header), in order. */
async function startCountingSink(): Promise<{ url: string; ids: string[]; reset(): void; close(): Promise<void> }> {
  const ids: string[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => { if (head.length < 4096) head += chunk.toString('latin1'); });
      stream.on('end', () => {
        ids.push(/^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? '(none)');
        callback();
      });
    },
  });
  // A worker killed mid-message resets its connections: expected in part 3.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, ids,
    reset: () => { ids.length = 0; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function surveyWithRule(t: TestApp): Promise<{ surveyId: string; accountId: string; propertyId: string }> {
  const tree = await createTree(t);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'After your stay', definition: DEFINITION, status: 'published' })).json();
  const rule = await t.admin('POST', `/surveys/${survey.id}/invitation-rules`, { node_id: tree.root, delay_hours: 0, cooldown_days: 0 });
  if (rule.statusCode !== 201) throw new Error(`rule: ${rule.body}`);
  return { surveyId: survey.id, accountId: tree.accountId, propertyId: tree.properties[0] };
}

const statusCounts = async (t: TestApp): Promise<Record<string, number>> => Object.fromEntries(
  (await t.ctx.db.selectFrom('survey_invitations').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute())
    .map((r) => [r.status, Number(r.n)]));

function checkDelivered(label: string, ids: readonly string[], expected: number, allowedDuplicates: number): { distinct: number; duplicates: number } {
  const distinct = new Set(ids).size;
  const duplicates = ids.length - distinct;
  if (distinct !== expected) throw new Error(`${label}: ${fmt(distinct)} distinct invitations delivered, expected ${fmt(expected)}`);
  if (duplicates > allowedDuplicates) throw new Error(`${label}: ${fmt(duplicates)} duplicates, more than ${allowedDuplicates}`);
  return { distinct, duplicates };
}

async function throughput(dialect: Dialect, sink: Awaited<ReturnType<typeof startCountingSink>>): Promise<string[]> {
  const t = await benchApp(dialect);
  try {
    const s = await surveyWithRule(t);
    let started = performance.now();
    await seedCheckedOutStays(t.ctx.db, s.accountId, s.propertyId, STAYS);
    console.log(`  seeded ${fmt(STAYS)} checked-out stays in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The worker as `repute worker` runs it: one planning pass, then claim–decide–send–record batches
    // (two at once) until none is due.
    sink.reset();
    started = performance.now();
    const planned = await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
    const planSeconds = (performance.now() - started) / 1000;
    const mailer = createMailer({ smtpUrl: sink.url, mailDir: null })!;
    const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: 'http://127.0.0.1:8080', mailFrom: t.config.mailFrom, retryScheduleS: [1], log: silent };
    try {
      await sendAllDue(deps);
    } finally {
      mailer.close();
    }
    const workerSeconds = (performance.now() - started) / 1000;
    const counts = await statusCounts(t);
    if (planned !== STAYS || counts.sent !== STAYS) throw new Error(`worker: planned ${planned}, statuses ${JSON.stringify(counts)}`);
    const delivered = checkDelivered('worker', sink.ids, STAYS, 0);

    // The baseline: the same messages (size, headers, links) through the same pooled transport, 5 in flight.
    const sample = invitationMessage({
      to: 'seeded-1@stays.example', from: t.config.mailFrom, language: 'en', firstName: null, propertyName: 'Harbour Hotel',
      surveyUrl: `http://127.0.0.1:8080/s/${'x'.repeat(43)}`, unsubscribeUrl: `http://127.0.0.1:8080/u/${'y'.repeat(43)}`,
      invitationId: '00000000-0000-7000-8000-000000000000', messageDomain: '127.0.0.1',
    });
    sink.reset();
    const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: SMTP_CONNECTIONS, maxMessages: Number.POSITIVE_INFINITY });
    started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: SMTP_CONNECTIONS }, async () => {
      while (next < STAYS) {
        const i = next++;
        await transport.sendMail({ ...sample, to: `seeded-${i}@stays.example`, messageId: `<baseline-${i}@127.0.0.1>` });
      }
    }));
    const baselineSeconds = (performance.now() - started) / 1000;
    transport.close();
    checkDelivered('baseline', sink.ids, STAYS, 0);

    const worker = STAYS / workerSeconds;
    const baseline = STAYS / baselineSeconds;
    return [
      `worker: ${fmt(STAYS)} invitations planned (${planSeconds.toFixed(1)} s) and delivered in ${workerSeconds.toFixed(1)} s: ${fmt(worker)} e-mails/s; `
        + `${fmt(delivered.distinct)} distinct at the sink, ${delivered.duplicates} twice`,
      `baseline: plain nodemailer loop (pool of ${SMTP_CONNECTIONS}, ${SMTP_CONNECTIONS} in flight) ${fmt(baseline)} e-mails/s`,
      `ratio worker / baseline: ${(worker / baseline).toFixed(2)} (target ≥ 0.5) ${worker / baseline >= 0.5 ? 'ok' : 'MISSED'}`,
      ...(await surveyPage(t, s.surveyId)),
    ];
  } finally {
    await t.close();
  }
}

/** Server time of GET /s/<token> for an opened invitation, and the page's weight with its stylesheets. */
async function surveyPage(t: TestApp, surveyId: string): Promise<string[]> {
  const invitation = await t.ctx.db.selectFrom('survey_invitations').select('id').where('survey_id', '=', surveyId).where('status', '=', 'sent').limit(1).executeTakeFirstOrThrow();
  const url = `/s/${invitationToken(t.config.secretKey, invitation.id, 'survey')}`;
  const first = await t.app.inject({ method: 'GET', url });
  if (first.statusCode !== 200 || !first.body.includes('<form')) throw new Error(`survey page: ${first.statusCode}`);
  for (let i = 0; i < 200; i++) await t.app.inject({ method: 'GET', url });
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const started = performance.now();
    const r = await t.app.inject({ method: 'GET', url });
    times.push(performance.now() - started);
    if (r.statusCode !== 200) throw new Error(`survey page: ${r.statusCode}`);
  }
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length * 0.5)]!;
  const p99 = times[Math.floor(times.length * 0.99)]!;
  const styles = [...first.body.matchAll(/<link rel="stylesheet" href="\/assets\/([^"]+)">/g)].map((m) => m[1]!);
  const cssBytes = styles.reduce((sum, name) => sum + readFileSync(`${ASSETS_DIR}/${name}`).length, 0);
  const scripts = [...first.body.matchAll(/<script/g)].length;
  const weight = Buffer.byteLength(first.body) + cssBytes;
  return [
    `survey page GET /s/<token>: server time p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p50 ≤ 5 ms) ${p50 <= 5 ? 'ok' : 'MISSED'}`,
    `survey page weight: ${fmt(weight)} bytes = HTML ${fmt(Buffer.byteLength(first.body))} + CSS ${fmt(cssBytes)} (${styles.join(', ')}), ${scripts} scripts (target ≤ 50 KB) ${weight <= 50 * 1024 ? 'ok' : 'MISSED'}`,
  ];
}

async function killAndRestart(dialect: Dialect, sink: Awaited<ReturnType<typeof startCountingSink>>): Promise<string> {
  const t = await benchApp(dialect);
  const workers: ReturnType<typeof spawnRepute>[] = [];
  const forgetWorkers = onInterrupt(() => Promise.all(workers.map((w) => stopRepute(w, 'SIGKILL'))));
  try {
    const s = await surveyWithRule(t);
    await seedCheckedOutStays(t.ctx.db, s.accountId, s.propertyId, KILL_STAYS);
    sink.reset();
    const env = cliEnv(cliDatabaseUrl(t.testDb), { LOG_LEVEL: 'warn', SMTP_URL: sink.url, MAIL_LEASE_S: '2', PUBLIC_URL: 'http://127.0.0.1:8080' });
    workers.push(spawnRepute(['worker'], env));
    const deadline = Date.now() + 120_000;
    while (sink.ids.length < KILL_STAYS * 0.3) {
      if (Date.now() > deadline) throw new Error(`kill: only ${sink.ids.length} delivered before the kill`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await stopRepute(workers[0]!, 'SIGKILL');
    const atKill = sink.ids.length;
    workers.push(spawnRepute(['worker'], env));
    const until = Date.now() + 300_000;
    while ((await statusCounts(t)).sent !== KILL_STAYS) {
      if (Date.now() > until) throw new Error(`kill: after the restart, ${JSON.stringify(await statusCounts(t))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { distinct, duplicates } = checkDelivered('kill -9', sink.ids, KILL_STAYS, IN_FLIGHT);
    return `kill -9 of the worker after ${fmt(atKill)} of ${fmt(KILL_STAYS)} e-mails, then a new worker: ${fmt(distinct)} distinct delivered (none lost), `
      + `${duplicates} twice (bound: the ${IN_FLIGHT} invitations a worker holds at once, 2 batches of ${DEFAULT_BATCH}) ok`;
  } finally {
    forgetWorkers();
    for (const w of workers) await stopRepute(w, 'SIGKILL');
    await t.close();
  }
}

const sink = await startCountingSink();
const summary: string[] = [];
let failed = false;
for (const dialect of dialects) {
  const title = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  console.log(`\n=== ${title} ===`);
  try {
    for (const line of [...(await throughput(dialect, sink)), await killAndRestart(dialect, sink)]) {
      console.log(`  ${line}`);
      summary.push(`[${dialect}] ${line}`);
    }
  } catch (error) {
    failed = true;
    console.error(`  FAILED: ${(error as Error).message}`);
    summary.push(`[${dialect}] FAILED: ${(error as Error).message}`);
  }
}
await sink.close();
console.log(`\nsummary\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
