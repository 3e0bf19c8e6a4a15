// The `repute` CLI (commander): serve, worker, migrate, demo, import, accounts, nodes, keys, guests.
import { Command } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { connect } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { startServer, stopOnSignals } from './serve.ts';

const program = new Command('repute').description('Repute: reputation and guest-feedback service (API v4)');

program.command('serve').description('migrate the database and serve the HTTP API').action(async () => {
  const server = await startServer(loadConfig());
  stopOnSignals(server);
});

program.command('migrate').description('run the database migrations').action(async () => {
  const config = loadConfig();
  const database = connect(config.databaseUrl);
  try {
    const applied = await migrateToLatest(database.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.destroy();
  }
});

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `configuration: ${error.message}` : error);
  process.exit(1);
});
