// `repute webhooks purge`: the retention pass (src/modules/webhooks/retention.ts) now, on the
// DATABASE_URL database, instead of waiting for a worker's daily one.
import { type Command, InvalidArgumentError } from 'commander';
import { CliError, EXIT_USAGE, printJson, withDatabase } from './support.ts';

function days(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 36_500) throw new InvalidArgumentError('must be a whole number of days from 0 to 36500');
  return Number(value);
}

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('webhook history kept in the database');

  webhooks.command('purge')
    .description('delete finished deliveries (with their attempts) whose last attempt is older than the retention, and older events no delivery refers to; pending deliveries are kept')
    .option('--older-than-days <n>', 'the retention in days (default: WEBHOOK_RETENTION_DAYS, 30)', days)
    .action(async (options: { olderThanDays?: number }) => {
      const { purgeWebhookHistory, retentionCutoff } = await import('../modules/webhooks/retention.ts');
      await withDatabase(async (database, config) => {
        const retentionDays = options.olderThanDays ?? config.webhookRetentionDays;
        if (retentionDays === 0 && options.olderThanDays === undefined) {
          throw new CliError('WEBHOOK_RETENTION_DAYS is 0 (history is kept for ever): give --older-than-days to purge anyway', EXIT_USAGE);
        }
        const cutoff = retentionCutoff(new Date(), retentionDays);
        printJson({ older_than: cutoff.toISOString(), ...(await purgeWebhookHistory(database.db, cutoff)) });
      });
    });
}
