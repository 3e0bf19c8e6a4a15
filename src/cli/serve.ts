// `repute serve` and `repute migrate`.
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config.ts';
import type { RunningServer } from '../process/serve.ts';
import { toCliError } from './support.ts';

/**
 * Starts the server (migrate, listen) and stops it on SIGTERM/SIGINT; a port in use or a database
 * that cannot be reached becomes one line naming the setting (src/cli/support.ts).
 */
export async function serveUntilSignalled(config: Config): Promise<RunningServer> {
  // Loaded on demand: the server pulls in every module, which other commands do not need.
  const { startServer, stopOnSignals } = await import('../process/serve.ts');
  const server = await startServer(config).catch((error: unknown) => { throw toCliError(error, config); });
  stopOnSignals(server);
  return server;
}

export function registerServe(program: Command): void {
  program.command('serve').description('migrate the database and serve the HTTP API').action(async () => {
    await serveUntilSignalled(loadConfig());
  });

  program.command('migrate').description('run the database migrations').action(async () => {
    const config = loadConfig();
    const [{ connect }, { migrateToLatest }] = await Promise.all([import('../db/connect.ts'), import('../db/migrate.ts')]);
    const database = connect(config.databaseUrl);
    try {
      const applied = await migrateToLatest(database.db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    } catch (error) {
      throw toCliError(error, config);
    } finally {
      await database.destroy();
    }
  });
}
