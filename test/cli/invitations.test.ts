// `repute invitations` as a real child process: a rule added, listed and removed; faults exit 2
// naming the option; the invitations table and --json.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';
import { DEFINITION, seedCheckedOutStays } from '../support/surveys.ts';
import { newPlannerState, planInvitations } from '../../src/modules/invitations/planner.ts';
import { cliDatabaseUrl, cliEnv, repute, reputeJson } from './run.ts';

eachDatabase('CLI: invitation rules add, list and remove; a survey\'s invitations as a table or JSON', async (t) => {
  const tree = await createTree(t);
  const env = cliEnv(cliDatabaseUrl(t.testDb));
  const survey = (await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'S', definition: DEFINITION, status: 'published' })).json();
  const rule = await reputeJson(['invitations', 'rules', 'add', '--survey', survey.id, '--node', tree.regions[0], '--delay-hours', '0.5', '--cooldown-days', '0'], env);
  assert.deepEqual([rule.survey_id, rule.node_id, rule.delay_hours, rule.consent, rule.max_age_days, rule.cooldown_days], [survey.id, tree.regions[0], 0.5, 'granted', 14, 0]);
  assert.deepEqual((await reputeJson(['invitations', 'rules', 'list', '--survey', survey.id], env)).data.map((r: any) => r.id), [rule.id]);

  const badConsent = await repute(['invitations', 'rules', 'add', '--survey', survey.id, '--node', tree.root, '--delay-hours', '1', '--consent', 'maybe'], env);
  assert.equal(badConsent.code, 2);
  assert.match(badConsent.stderr, /--consent/);
  const badHours = await repute(['invitations', 'rules', 'add', '--survey', survey.id, '--node', tree.root, '--delay-hours', 'soon'], env);
  assert.equal(badHours.code, 2);
  assert.match(badHours.stderr, /--delay-hours/);

  await seedCheckedOutStays(t.ctx.db, tree.accountId, tree.properties[0], 3);
  await planInvitations(t.ctx.db, t.config.secretKey, newPlannerState());
  const table = await repute(['invitations', 'list', '--survey', survey.id], env);
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0]!, /^INVITATION\s+STATE\s+SEND AT\s+SENT AT\s+TRIES\s+REASON$/);
  assert.equal(lines.length, 4);
  assert.ok(lines.slice(1).every((l) => /\sscheduled\s/.test(l)), table.stdout);
  const page = await reputeJson(['invitations', 'list', '--survey', survey.id, '--json', '--limit', '2'], env);
  assert.equal(page.data.length, 2);
  assert.equal(page.has_more, true);

  assert.deepEqual(await reputeJson(['invitations', 'rules', 'remove', rule.id], env), { id: rule.id, deleted: true });
  const after = await reputeJson(['invitations', 'list', '--survey', survey.id, '--json'], env);
  assert.deepEqual(after.data.map((i: any) => [i.status, i.last_error]), Array(3).fill(['cancelled', 'the invitation rule was removed']));
  const gone = await repute(['invitations', 'rules', 'remove', rule.id], env);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /invitation rule not found/);
});
