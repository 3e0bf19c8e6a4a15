// `repute invitations rules add|list|remove` and `repute invitations list`: turn post-stay survey
// invitations on or off and see each invitation's state, on the DATABASE_URL database (no admin
// token needed). Bodies are validated as the admin API validates them.
import { type Command, InvalidArgumentError } from 'commander';
import type { InvitationListQuery, RuleInput } from '../modules/invitations/schemas.ts';
import { wholeNumber } from './accounts.ts';
import { printJson, printTable, validate, withDatabase } from './support.ts';

// Loaded on use, not at the top: `repute --help` need not load the services.
const rules = () => import('../modules/invitations/rules.ts');

const hours = (value: string): number => {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of hours, e.g. 24 or 0.5');
  return Number(value);
};

export function registerInvitations(program: Command): void {
  const invitations = program.command('invitations').description('post-stay survey invitations: rules that turn them on, and their states');
  const ruleCommands = invitations.command('rules').description('turn invitations on for a published survey and a node subtree, list or stop them');

  ruleCommands.command('add')
    .description('invite guests of the node\'s properties to the survey after their stay ends; prints the rule as JSON')
    .requiredOption('--survey <id>', 'a published survey')
    .requiredOption('--node <id>', 'the survey\'s node or a node below it: its properties\' stays are invited')
    .requiredOption('--delay-hours <h>', 'hours after the stay\'s end (fractions allowed)', hours)
    .option('--consent <mode>', 'granted (default): only guests who granted consent; not_withdrawn: all who have not withdrawn it')
    .option('--max-age-days <n>', 'never invite a stay that ended longer ago than this (default 14)', wholeNumber)
    .option('--cooldown-days <n>', 'do not invite a guest invited within this many days (default 30; 0: off)', wholeNumber)
    .addHelpText('after', '\nExample:\n  $ repute invitations rules add --survey <id> --node <root node id> --delay-hours 24')
    .action(async (o: { survey: string; node: string; delayHours: number; consent?: string; maxAgeDays?: number; cooldownDays?: number }) => {
      const [{ RuleInput }, { createRule }] = await Promise.all([import('../modules/invitations/schemas.ts'), rules()]);
      await withDatabase(async (database) => {
        const body = await validate<RuleInput>(RuleInput, {
          node_id: o.node, delay_hours: o.delayHours, ...(o.consent !== undefined ? { consent: o.consent } : {}),
          ...(o.maxAgeDays !== undefined ? { max_age_days: o.maxAgeDays } : {}), ...(o.cooldownDays !== undefined ? { cooldown_days: o.cooldownDays } : {}),
        });
        printJson(await createRule(database.db, o.survey, body));
      },
        { node_id: '--node', delay_hours: '--delay-hours', max_age_days: '--max-age-days', cooldown_days: '--cooldown-days', consent: '--consent' });
    });

  ruleCommands.command('list')
    .description('the survey\'s invitation rules, as JSON')
    .requiredOption('--survey <id>', 'survey id')
    .action(async (o: { survey: string }) => {
      const { listRules } = await rules();
      await withDatabase(async (database) => printJson(await listRules(database.db, o.survey)));
    });

  ruleCommands.command('remove')
    .description('stop a rule: its invitations not yet sent are cancelled')
    .argument('<rule-id>', 'the rule\'s id')
    .action(async (id: string) => {
      const { deleteRule } = await rules();
      await withDatabase(async (database) => printJson(await deleteRule(database.db, id)));
    });

  invitations.command('list')
    .description('a survey\'s invitations, newest first: scheduled, sent, failed (with the SMTP answer), cancelled (with why), opened, answered')
    .requiredOption('--survey <id>', 'survey id')
    .option('--status <status>', 'only scheduled, sending, sent, failed or cancelled ones')
    .option('--limit <n>', 'at most this many (1–500, default 100)', wholeNumber)
    .option('--json', 'print the admin API\'s JSON page instead of a table')
    .action(async (o: { survey: string; status?: string; limit?: number; json?: boolean }) => {
      const [{ InvitationListQuery }, { listInvitations }] = await Promise.all([import('../modules/invitations/schemas.ts'), rules()]);
      await withDatabase(async (database) => {
        const query = await validate<InvitationListQuery>(InvitationListQuery, {
          ...(o.status !== undefined ? { status: o.status } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}),
        });
        const page = await listInvitations(database.db, o.survey, query);
        if (o.json) printJson(page);
        else printTable(['INVITATION', 'STATE', 'SEND AT', 'SENT AT', 'TRIES', 'REASON'], page.data.map((r) => [
          r.id, r.state, r.send_at, r.sent_at ?? '-', String(r.attempts), r.last_error ?? '',
        ]));
      }, { status: '--status', limit: '--limit' });
    });
}
