// `repute keys create|list|revoke`: API keys bound to a node with scopes (listed without their value).
import type { Command } from 'commander';
import { SCOPES } from '../access/scopes.ts';
import { CliError, commaList, EXIT_USAGE, printJson, printTable, withDatabase } from './support.ts';

// Loaded on use, not at the top: `repute --help` need not load the services.
const services = () => import('../modules/keys/service.ts');

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys (directly on DATABASE_URL)');
  keys.command('create')
    .description('create an API key and print it as JSON; the key is shown this once (only its hash is stored)')
    .requiredOption('--account <id>', 'the account\'s id')
    .requiredOption('--node <id>', 'the node the key is bound to: it reads that node\'s subtree')
    .requiredOption('--scopes <list>', `comma list of scopes: ${SCOPES.join(', ')}`, commaList)
    .option('--name <name>', 'a label for the key')
    .addHelpText('after', '\nExample:\n  $ repute keys create --account $ACCOUNT --node $ROOT --scopes reviews:read,analytics:read --name "BI export"')
    .action(async (options: { account: string; node: string; scopes: string[]; name?: string }) => {
      if (options.scopes.length === 0) throw new CliError('--scopes needs at least one scope', EXIT_USAGE);
      const { createKey } = await services();
      await withDatabase(async (database) => {
        const created = await createKey(database.db, options.account, { node_id: options.node, scopes: options.scopes, name: options.name ?? null });
        printJson(created);
        process.stderr.write('Store this key now: it is not shown again (only its hash is stored).\n');
      }, { node_id: '--node', scopes: '--scopes' });
    });

  keys.command('revoke')
    .description('revoke an API key: it answers 401 from then on (a running server notices within 2 seconds)')
    .argument('<id>', 'the key\'s id (not the key itself)')
    .action(async (id: string) => {
      const { revokeKey } = await services();
      await withDatabase(async (database) => {
        await revokeKey(database.db, id);
        printJson({ id, revoked: true });
      });
    });

  keys.command('list')
    .description('the account\'s API keys, revoked ones too, newest first: never the key itself (only its hash is stored)')
    .requiredOption('--account <id>', 'the account\'s id')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { account: string; json?: boolean }) => {
      const { accountKeys } = await services();
      await withDatabase(async (database) => {
        const keys = await accountKeys(database.db, options.account);
        if (options.json) printJson({ data: keys });
        else printTable(['KEY ID', 'NODE', 'CREATED', 'LAST USED', 'REVOKED', 'SCOPES', 'NAME'], keys.map((k) => [
          k.id, k.node_id, k.created_at, k.last_used_at ?? '-', k.revoked_at ?? '-', k.scopes.join(','), k.name ?? '',
        ]));
      });
    });
}
