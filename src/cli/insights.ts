// `repute insights extract|recommend|categories`: read reviews again with the insights engine (with a
// progress bar), refresh recommendations now, and manage an account's own categories.
import { type Command, InvalidArgumentError } from 'commander';
import { parseInstant } from '../lib/instant.ts';
import { CliError, EXIT_USAGE, printJson, withDatabase } from './support.ts';

// Loaded on use, not at the top: `repute --help` need not load the engine or the services.
const extraction = () => import('../modules/insights/extraction.ts');

function keywordsOption(value: string, previous: Record<string, string[]> = {}): Record<string, string[]> {
  const match = /^([a-z]{2,3})=(.+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('must be <language>=<comma list>, e.g. en=rooftop,terrace');
  const [, language, list] = match;
  return { ...previous, [language!]: [...(previous[language!] ?? []), ...list!.split(',').map((s) => s.trim()).filter(Boolean)] };
}

export function registerInsights(program: Command): void {
  const insights = program.command('insights').description('the insights engine: topics and sentiment from reviews, recommendations');

  insights.command('extract')
    .description('read reviews again with the insights engine (replaces their mentions), showing progress')
    .option('--account <id>', 'only this account\'s reviews')
    .option('--since <instant>', 'only reviews written or changed at or after this ISO 8601 instant')
    .action(async (options: { account?: string; since?: string }) => {
      const since = options.since === undefined ? null : parseInstant(options.since);
      if (options.since !== undefined && since === null) throw new CliError(`--since must be an ISO 8601 instant, got ${JSON.stringify(options.since)}`, EXIT_USAGE);
      const [{ requeueReviews, extractDueBatch, remainingOf }, { createExtractor }, { default: cliProgress }] = await Promise.all([
        extraction(), import('../extraction/index.ts'), import('cli-progress'),
      ]);
      await withDatabase(async (database) => {
        const account = options.account ?? null;
        const { total, queuedAt } = await requeueReviews(database.db, account, since);
        const extractor = createExtractor();
        const started = Date.now();
        const bar = process.stderr.isTTY
          ? new cliProgress.SingleBar({ stream: process.stderr, format: 'extracting |{bar}| {percentage}% | {value}/{total} reviews | {rate} reviews/s | eta {eta_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic)
          : null;
        bar?.start(total, 0, { rate: 0 });
        let mine = 0;
        let read = 0;
        let lastLine = started;
        const log = { warn: (obj: object, message: string) => process.stderr.write(`${message} ${JSON.stringify(obj)}\n`) };
        // Running workers (a server's inline one, repute worker) read from the same queue: the progress
        // is every reader's, and the command ends when the last of its reviews is read, by whomever.
        for (;;) {
          const took = await extractDueBatch({ db: database.db, extractor, log }, 500);
          mine += took;
          const left = await remainingOf(database.db, account, queuedAt);
          read = Math.max(read, total - Math.min(left, total));
          const rate = Math.round(read / Math.max((Date.now() - started) / 1000, 0.001));
          bar?.update(read, { rate });
          if (!bar && Date.now() - lastLine >= 10_000) {
            lastLine = Date.now();
            process.stderr.write(`extract: ${read}/${total} reviews, ${rate} reviews/s\n`);
          }
          if (left === 0) break;
          // What is left is being read elsewhere (or leased by a worker that died: claimable once its lease ends).
          if (took === 0) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        bar?.stop();
        const seconds = (Date.now() - started) / 1000;
        printJson({
          queued: total, extracted: read, by_this_process: mine,
          seconds: Math.round(seconds * 10) / 10, reviews_per_second: Math.round(read / Math.max(seconds, 0.001)),
        });
      });
    });

  insights.command('recommend')
    .description('refresh the engine\'s recommendations now (the worker also does it daily)')
    .option('--account <id>', 'only this account')
    .action(async (options: { account?: string }) => {
      const { refreshRecommendations } = await import('../modules/insights/recommendations.ts');
      const { requireAccount } = await import('../modules/accounts/service.ts');
      await withDatabase(async (database) => {
        const accounts = options.account
          ? [(await requireAccount(database.db, options.account)).id]
          : (await database.db.selectFrom('accounts').select('id').execute()).map((r) => r.id);
        const result: Record<string, number> = {};
        for (const id of accounts) result[id] = await refreshRecommendations(database.db, id, new Date());
        printJson({ recommendations: result });
      }, { id: '--account' });
    });

  const categories = insights.command('categories').description('an account\'s own categories: keyword lists the engine matches in mentions');
  categories.command('add')
    .description('add a category the engine then finds in reviews (read again with `repute insights extract`); prints it as JSON')
    .requiredOption('--account <id>', 'the account\'s id')
    .requiredOption('--name <name>', 'the category\'s name')
    .requiredOption('--keywords <language=list>', 'keywords of one language, e.g. en=rooftop,terrace (repeat for more languages)', keywordsOption)
    .option('--parent <topic id>', 'a topic it sits beneath')
    .action(async (options: { account: string; name: string; keywords: Record<string, string[]>; parent?: string }) => {
      const { createCategory } = await import('../modules/insights/categories.ts');
      await withDatabase(async (database) => {
        printJson(await createCategory(database.db, options.account, { name: options.name, keywords: options.keywords, parent_label_id: options.parent ?? null }));
      }, { 'body.keywords': '--keywords', 'body.parent_label_id': '--parent' });
    });
  categories.command('list')
    .description('the account\'s categories with their keywords, as JSON')
    .requiredOption('--account <id>', 'the account\'s id')
    .action(async (options: { account: string }) => {
      const { listCategories } = await import('../modules/insights/categories.ts');
      await withDatabase(async (database) => printJson({ data: await listCategories(database.db, options.account) }));
    });
  categories.command('remove')
    .description('remove a category and its mentions')
    .argument('<id>', 'the category\'s id')
    .action(async (id: string) => {
      const { deleteCategory } = await import('../modules/insights/categories.ts');
      await withDatabase(async (database) => printJson(await deleteCategory(database.db, id)));
    });
}
