// Invitations under crashes and concurrency: a `repute worker` killed with SIGKILL mid-run leaves
// nothing unsent after a restart, with duplicates at most the batches it had in flight (both
// databases); two workers on one PostgreSQL send every invitation exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMailer } from '../../src/mail/transport.ts';
import { newPlannerState, planInvitations } from '../../src/modules/invitations/planner.ts';
import { DEFAULT_BATCH, sendDueBatch } from '../../src/modules/invitations/sender.ts';
import { cliDatabaseUrl, cliEnv } from '../cli/run.ts';
import { createTestApp, dialects, type TestApp } from '../support/app.ts';
import { createTree } from '../support/factories.ts';
import { startMailSink } from '../support/mail-sink.ts';
import { spawnRepute, stopRepute, type ReputeProcess } from '../support/repute-processes.ts';
import { DEFINITION, seedCheckedOutStays } from '../support/surveys.ts';
import { until } from '../webhooks/helpers.ts';

async function surveyWithRule(t: TestApp): Promise<{ surveyId: string; propertyId: string; accountId: string }> {
  const tree = await createTree(t);
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'S', definition: DEFINITION, status: 'published' })).json();
  assert.equal((await t.admin('POST', `/surveys/${survey.id}/invitation-rules`, { node_id: tree.root, delay_hours: 0, cooldown_days: 0 })).statusCode, 201);
  return { surveyId: survey.id, propertyId: tree.properties[0], accountId: tree.accountId };
}

const statusCounts = async (t: TestApp): Promise<Record<string, number>> => Object.fromEntries(
  (await t.ctx.db.selectFrom('survey_invitations').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute())
    .map((r) => [r.status, Number(r.n)]));

const invitationIds = async (t: TestApp): Promise<string[]> =>
  (await t.ctx.db.selectFrom('survey_invitations').select('id').execute()).map((r) => `<invitation-${r.id}@127.0.0.1>`).sort();

for (const dialect of dialects) {
  test(`a worker killed with SIGKILL mid-run has every invitation sent after a restart, duplicates at most what it held [${dialect}]`, { timeout: 180_000 }, async () => {
    const t = await createTestApp(dialect);
    const sink = await startMailSink();
    const workers: ReputeProcess[] = [];
    const total = 2000;
    try {
      const s = await surveyWithRule(t);
      await seedCheckedOutStays(t.ctx.db, s.accountId, s.propertyId, total);
      // A lease short enough for the restart to take the killed worker's invitations soon, long enough
      // that a batch on a loaded machine is sent before its own lease runs out (at 2 s, one CI run's
      // worker re-claimed its own slow batch: 203 duplicates).
      const env = cliEnv(cliDatabaseUrl(t.testDb), { LOG_LEVEL: 'warn', SMTP_URL: sink.url, MAIL_LEASE_S: '6', PUBLIC_URL: 'http://127.0.0.1' });
      workers.push(spawnRepute(['worker'], env));
      await until(async () => sink.mails.length >= 100 || null, 90_000, 'the first e-mails');
      await stopRepute(workers[0]!, 'SIGKILL');
      const atKill = sink.mails.length;
      assert.ok(atKill < total, `the worker was killed mid-run (${atKill} of ${total} sent)`);
      workers.push(spawnRepute(['worker'], env));
      await until(async () => (await statusCounts(t)).sent === total || null, 120_000, 'every invitation sent');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const received = sink.mails.map((m) => m.parsed.messageId);
      assert.deepEqual([...new Set(received)].sort(), await invitationIds(t), 'every invitation arrived');
      const duplicates = received.length - new Set(received).size;
      // A worker holds two batches at once (sendAllDue's lanes).
      assert.ok(duplicates <= 2 * DEFAULT_BATCH, `${duplicates} duplicates, more than the ${2 * DEFAULT_BATCH} a worker holds at once`);
      assert.equal(await stopRepute(workers[1]!), 0);
    } finally {
      for (const w of workers) await stopRepute(w, 'SIGKILL');
      await sink.close();
      await t.close();
    }
  });
}

test('a batch slower to send than its lease keeps it: a second worker sends none of it again', { timeout: 120_000 }, async () => {
  const t = await createTestApp('sqlite');
  // Each message takes the SMTP server 1 s: 15 over 5 connections take about 3 s, past a 2 s lease.
  const sink = await startMailSink({ delayMs: 1000 });
  const mailers = [createMailer({ smtpUrl: sink.url, mailDir: null })!, createMailer({ smtpUrl: sink.url, mailDir: null })!];
  try {
    const s = await surveyWithRule(t);
    await seedCheckedOutStays(t.ctx.db, s.accountId, s.propertyId, 15);
    await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
    const deps = (i: number) => ({ db: t.ctx.db, mailer: mailers[i]!, secretKey: t.config.secretKey, publicUrl: 'http://127.0.0.1', mailFrom: t.config.mailFrom, retryScheduleS: [0], log: t.ctx.log, batch: 15, leaseMs: 2000 });
    const first = sendDueBatch(deps(0));
    // Past the first lease, while the first worker is still sending: it looks for leftovers too.
    await new Promise((resolve) => setTimeout(resolve, 2600));
    assert.equal(await sendDueBatch(deps(1)), 0, 'the second worker finds nothing to take');
    assert.equal(await first, 15);
    const received = sink.mails.map((m) => m.parsed.messageId).sort();
    assert.deepEqual(received, await invitationIds(t), 'each invitation arrived once');
    assert.deepEqual(await statusCounts(t), { sent: 15 });
  } finally {
    for (const m of mailers) m.close();
    await sink.close();
    await t.close();
  }
});

if (dialects.includes('postgres')) {
  test('two workers on one PostgreSQL send every invitation exactly once', { timeout: 120_000 }, async () => {
    const t = await createTestApp('postgres');
    const sink = await startMailSink();
    const mailers = [createMailer({ smtpUrl: sink.url, mailDir: null })!, createMailer({ smtpUrl: sink.url, mailDir: null })!];
    try {
      const s = await surveyWithRule(t);
      await seedCheckedOutStays(t.ctx.db, s.accountId, s.propertyId, 1000);
      await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
      const claimed = [0, 0];
      await Promise.all(mailers.map(async (mailer, i) => {
        const deps = { db: t.ctx.db, mailer, secretKey: t.config.secretKey, publicUrl: 'http://127.0.0.1', mailFrom: t.config.mailFrom, retryScheduleS: [0], log: t.ctx.log, batch: 25 };
        for (let n = await sendDueBatch(deps); n > 0; n = await sendDueBatch(deps)) claimed[i]! += n;
      }));
      assert.equal(claimed[0]! + claimed[1]!, 1000, `claims ${claimed.join(' + ')}`);
      assert.ok(claimed.every((n) => n > 0), `both workers took part: ${claimed.join(' + ')}`);
      const received = sink.mails.map((m) => m.parsed.messageId).sort();
      assert.deepEqual(received, await invitationIds(t));
      assert.deepEqual(await statusCounts(t), { sent: 1000 });
    } finally {
      for (const m of mailers) m.close();
      await sink.close();
      await t.close();
    }
  });
}
