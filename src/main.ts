// The `repute` CLI (commander). Sub-commands live in src/cli/, listed in src/cli/commands.ts. Every
// failure ends as one line `repute: …` on stderr and exit status 1 or 2 (src/cli/support.ts); the
// stack trace only with DEBUG=repute.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, toCliError } from './cli/support.ts';
import { commands } from './cli/commands.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('repute')
  .description('Repute: reputation and guest-feedback service (API v4). Works on the database named by DATABASE_URL.')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  // Commander's own usage errors ("error: unknown option …") in the same `repute: …` form, exit 2.
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'repute: ')) })
  .exitOverride();
for (const register of commands) register(program);

program.parseAsync().catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  if (/(^|,)\s*repute\s*(,|$)/.test(process.env.DEBUG ?? '')) console.error(error);
  const failure = toCliError(error);
  process.stderr.write(`repute: ${failure.message}\n`);
  process.exit(failure.exitCode);
});
