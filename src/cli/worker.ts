// `repute worker`: the background loops without the HTTP server (beside `repute serve` with
// REPUTE_WORKER=off, or several processes against one PostgreSQL): webhook delivery, the insights
// engine's extraction, survey invitations and the daily retention. SIGTERM/SIGINT finish the
// attempts in flight, then exit. Its log lines keep the name "webhook worker" (which log searches
// may match) though it runs all four.
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from '../delivery/defaults.ts';
import { toCliError } from './support.ts';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000) throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  return Number(value);
}

export function registerWorker(program: Command): void {
  program.command('worker')
    .description('deliver webhooks, send survey invitations and extract review insights from the database named by DATABASE_URL (no HTTP server)')
    .option('--concurrency <n>', 'requests in flight at once', positiveInt, DEFAULT_CONCURRENCY)
    .option('--per-endpoint <n>', 'requests in flight to one endpoint at once', positiveInt, DEFAULT_PER_ENDPOINT)
    .action(async (options: { concurrency: number; perEndpoint: number }) => {
      const config = loadConfig();
      // Loaded on use, not at the top: `repute --help` need not load the worker and the drivers.
      const [{ default: pino }, { connect }, { migrateToLatest }, { startWorker }, { storesFor }, { startInsightsWorker }, { startInvitationsWorker }, { startRetentionWorker }, { checkSecretKey }] = await Promise.all([
        import('pino'), import('../db/connect.ts'), import('../db/migrate.ts'), import('../delivery/worker.ts'), import('../stores.ts'),
        import('../process/insights-worker.ts'), import('../process/invitations-worker.ts'), import('../process/retention-worker.ts'),
        import('../process/secret-key-check.ts'),
      ]);
      const log = pino({ level: config.logLevel });
      const database = connect(config.databaseUrl);
      await migrateToLatest(database.db).catch(async (error: unknown) => {
        await database.destroy();
        throw toCliError(error, config);
      });
      await checkSecretKey(database.db, config.secretKey, log);
      const store = storesFor(database).deliveries;
      const worker = startWorker({ store, commits: database.commits, config, log }, { concurrency: options.concurrency, perEndpoint: options.perEndpoint });
      const insights = startInsightsWorker({ db: database.db, commits: database.commits, log });
      const invitations = startInvitationsWorker({ db: database.db, commits: database.commits, log }, config);
      const retention = startRetentionWorker({ db: database.db, log }, config);
      const unlisten = database.listenForCommits(() => {
        worker.wake();
        insights.wake();
        invitations.wake();
      }, log);
      log.info({ concurrency: options.concurrency, perEndpoint: options.perEndpoint, dialect: database.dialect }, 'webhook worker started');
      const stop = (signal: NodeJS.Signals) => {
        log.info({ signal }, 'webhook worker stopping: finishing attempts in flight');
        Promise.all([worker.stop(), insights.stop(), invitations.stop(), retention.stop(), unlisten()]).then(() => database.destroy()).then(
          () => {
            const cpu = process.cpuUsage();
            log.info({ ...worker.stats, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100 }, 'webhook worker stopped');
            process.exit(0);
          },
          (error: unknown) => {
            log.error({ err: error }, 'webhook worker shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
