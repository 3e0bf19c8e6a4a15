// The `repute` CLI (commander). Sub-commands live in src/cli/, listed in src/cli/commands.ts.
import { Command } from 'commander';
import { ConfigError } from './config.ts';
import { AppError } from './http/errors.ts';
import { DomainError } from './lib/errors.ts';
import { commands } from './cli/commands.ts';

const program = new Command('repute')
  .description('Repute: reputation and guest-feedback service (API v4). Works on the database named by DATABASE_URL.')
  .showHelpAfterError();
for (const register of commands) register(program);

program.parseAsync().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`configuration: ${error.message}`);
  else if (error instanceof AppError || error instanceof DomainError) console.error(`error: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
