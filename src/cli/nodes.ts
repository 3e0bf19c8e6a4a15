// `repute nodes create|list`: a node of an account's hierarchy (the root first, then regions,
// properties…); the hierarchy as an indented tree or JSON.
import type { Command } from 'commander';
import type { NodeInput } from '../modules/nodes/schemas.ts';
import type { NodeTree } from '../modules/nodes/service.ts';
import { printJson, validate, withDatabase } from './support.ts';

/** One line per node, indented under its parent: name, type and id. */
function printTree(nodes: readonly NodeTree[], depth = 0): void {
  for (const n of nodes) {
    process.stdout.write(`${'  '.repeat(depth)}${n.name} (${n.type})  ${n.id}\n`);
    printTree(n.children, depth + 1);
  }
}

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
      }, { name: '--name', type: '--type', parent_id: '--parent' });
    });

  nodes.command('list')
    .description('the account\'s nodes as an indented tree (or JSON with --json: each node with its children)')
    .requiredOption('--account <id>', 'the account\'s id')
    .option('--json', 'print JSON instead of a tree')
    .action(async (options: { account: string; json?: boolean }) => {
      const { accountNodeTree } = await import('../modules/nodes/service.ts');
      await withDatabase(async (database) => {
        const tree = await accountNodeTree(database.db, options.account);
        if (options.json) printJson({ data: tree });
        else printTree(tree);
      });
    });
}
