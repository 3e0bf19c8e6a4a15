// `repute accounts create`: an account, printed as the admin API's Account JSON.
import { type Command, InvalidArgumentError } from 'commander';
import type { AccountInput } from '../modules/accounts/schemas.ts';
import { FEATURES } from '../access/scopes.ts';
import { CliError, commaList, EXIT_USAGE, printJson, validate, withDatabase } from './support.ts';

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
      }, { plan_features: '--features', webhook_endpoint_limit: '--webhook-limit' });
    });
}
