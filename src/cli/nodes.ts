// `repute nodes create`: a node of an account's hierarchy (the root first, then regions, properties…).
import type { Command } from 'commander';
import type { NodeInput } from '../modules/nodes/schemas.ts';
import { printJson, validate, withDatabase } from './support.ts';

export function registerNodes(program: Command): void {
  const nodes = program.command('nodes').description('manage the node hierarchy (directly on DATABASE_URL)');
  nodes.command('create')
    .description('create a node and print it as JSON; without --parent it is the account\'s root (one per account)')
    .requiredOption('--account <id>', 'the account\'s id')
    .requiredOption('--name <name>', 'the node\'s name')
    .requiredOption('--type <type>', 'e.g. account, region, property (a property is a leaf: it takes no children)')
    .option('--parent <id>', 'the parent node\'s id (omit for the root node)')
    .addHelpText('after', [
      '', 'Example:',
      '  $ ROOT=$(repute nodes create --account $ACCOUNT --name "Alpine Hotels" --type account | jq -r .id)',
      '  $ repute nodes create --account $ACCOUNT --name "Lakeside Hotel" --type property --parent $ROOT',
    ].join('\n'))
    .action(async (options: { account: string; name: string; type: string; parent?: string }) => {
      // Loaded on use, not at the top: `repute --help` need not load the services.
      const [{ NodeInput }, { createNode, toNode }] = await Promise.all([
        import('../modules/nodes/schemas.ts'), import('../modules/nodes/service.ts'),
      ]);
      await withDatabase(async (database) => {
        const input = await validate<NodeInput>(NodeInput, { name: options.name, type: options.type, parent_id: options.parent ?? null });
        printJson(toNode(await createNode(database.db, options.account, input)));
      }, { parent_id: '--parent' });
    });
}
