// `repute serve` and `repute migrate`.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { startServer, stopOnSignals } from '../serve.ts';

export function registerServe(program: Command): void {
  program.command('serve').description('migrate the database and serve the HTTP API').action(async () => {
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
