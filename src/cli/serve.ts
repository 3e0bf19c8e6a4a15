// `repute serve` and `repute migrate`.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';

export function registerServe(program: Command): void {
  program.command('serve').description('migrate the database and serve the HTTP API').action(async () => {
    // Loaded on demand: the server pulls in every module, which other commands do not need.
    const { startServer, stopOnSignals } = await import('../process/serve.ts');
    stopOnSignals(await startServer(loadConfig()));
  });

  program.command('migrate').description('run the database migrations').action(async () => {
    const database = connect(loadConfig().databaseUrl);
    try {
      const applied = await migrateToLatest(database.db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await database.destroy();
    }
  });
}
