// `repute accounts create|list`: an account, printed as the admin API's Account JSON; every account.
import { type Command, InvalidArgumentError } from 'commander';
import type { AccountInput } from '../modules/accounts/schemas.ts';
import { FEATURES } from '../access/scopes.ts';
import { CliError, commaList, EXIT_USAGE, printJson, printTable, validate, withDatabase } from './support.ts';

export const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number.');
  return Number(value);
};

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts (directly on DATABASE_URL; no admin token needed)');
  accounts.command('create')
    .description('create an account and print it as JSON; create its root node next (repute nodes create … without --parent)')
    .requiredOption('--name <name>', 'the account\'s name')
    .option('--features <list>', `comma list of plan features (default: all of ${FEATURES.join(', ')})`, commaList)
    .option('--webhook-limit <n>', 'webhook endpoints the account may have (default: WEBHOOK_ENDPOINT_LIMIT)', wholeNumber)
    .addHelpText('after', '\nExample:\n  $ repute accounts create --name "Alpine Hotels" --features reviews,surveys,analytics')
    .action(async (options: { name: string; features?: string[]; webhookLimit?: number }) => {
      const unknown = (options.features ?? []).filter((f) => !(FEATURES as readonly string[]).includes(f));
      if (unknown.length > 0) throw new CliError(`--features has unknown feature ${unknown.join(', ')}; allowed: ${FEATURES.join(', ')}`, EXIT_USAGE);
      // Loaded here, not at the top: `repute --help` need not load the services and their schemas.
      const [{ AccountInput }, { createAccount, toAccount }] = await Promise.all([
        import('../modules/accounts/schemas.ts'), import('../modules/accounts/service.ts'),
      ]);
      await withDatabase(async (database, config) => {
        const input = await validate<AccountInput>(AccountInput, {
          name: options.name,
          ...(options.features ? { plan_features: options.features } : {}),
          ...(options.webhookLimit !== undefined ? { webhook_endpoint_limit: options.webhookLimit } : {}),
        });
        printJson(toAccount(await createAccount(database.db, input), config));
      }, { name: '--name', plan_features: '--features', webhook_endpoint_limit: '--webhook-limit' });
    });

  accounts.command('list')
    .description('every account, newest first, as a table (or the admin API\'s JSON with --json)')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const { listAccounts } = await import('../modules/accounts/service.ts');
      await withDatabase(async (database, config) => {
        const all = [];
        let cursor: string | undefined;
        for (;;) {
          const page = await listAccounts(database.db, config, { limit: 500, ...(cursor ? { cursor } : {}) });
          all.push(...page.data);
          if (!page.next_cursor) break;
          cursor = page.next_cursor;
        }
        if (options.json) printJson({ data: all });
        else printTable(['ACCOUNT', 'CREATED', 'WEBHOOKS', 'FEATURES', 'NAME'], all.map((a) => [a.id, a.created_at, String(a.webhook_endpoint_limit), a.plan_features.join(','), a.name]));
      });
    });
}
