// `repute users create`, `list`, `password` and `delete`: dashboard users. The password is asked for on
// the terminal (not echoed) or read from --password-file (its first line): never an option value,
// which would land in the shell history and the process list.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError, EXIT_USAGE, printJson, printTable, withDatabase } from './support.ts';

// Loaded on use, not at the top: `repute --help` need not load the services.
const services = () => import('../modules/users/service.ts');
const passwords = () => import('../modules/users/password-change.ts');

const ROLES = ['owner', 'manager', 'viewer'];

/** Reads one line from the terminal without echoing it. */
function askHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.reject(new CliError('no terminal to ask for the password on: give --password-file <path>', EXIT_USAGE));
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new CliError('cancelled', EXIT_USAGE));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

async function passwordOf(file: string | undefined, asked = 'Password'): Promise<string> {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`--password-file ${file} cannot be read: ${(error as Error).message}`, EXIT_USAGE);
    }
    return text.split(/\r?\n/)[0] ?? '';
  }
  const first = await askHidden(`${asked} (12 characters or more): `);
  const again = await askHidden(`${asked} again: `);
  if (first !== again) throw new CliError('the two passwords differ', EXIT_USAGE);
  return first;
}

export function registerUsers(program: Command): void {
  const users = program.command('users').description('manage dashboard users (directly on DATABASE_URL)');
  users.command('create')
    .description('create a dashboard user and print it as JSON (the password is stored only as a scrypt hash)')
    .requiredOption('--account <id>', 'the account\'s id')
    .requiredOption('--email <address>', 'the user\'s e-mail (unique in the instance, whatever its case)')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--node <id>', 'bind the user to a node: it sees that node\'s subtree only (default: the whole account)')
    .option('--password-file <path>', 'read the password from the first line of this file instead of asking on the terminal')
    .addHelpText('after', '\nExample:\n  $ repute users create --account $ACCOUNT --email gm@harbour.example --role manager --node $HOTEL')
    .action(async (options: { account: string; email: string; role: string; node?: string; passwordFile?: string }) => {
      if (!ROLES.includes(options.role)) throw new CliError(`--role must be one of: ${ROLES.join(', ')}`, EXIT_USAGE);
      const password = await passwordOf(options.passwordFile);
      const { createUser } = await services();
      await withDatabase(async (database) => {
        printJson(await createUser(database.db, options.account, {
          email: options.email, password, role: options.role as 'owner', node_id: options.node ?? null,
        }));
      }, { node_id: '--node', email: '--email', password: 'the password', role: '--role' });
    });

  users.command('list')
    .description('the account\'s dashboard users, oldest first: e-mail, role and node (never a password, only its hash is stored)')
    .requiredOption('--account <id>', 'the account\'s id')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { account: string; json?: boolean }) => {
      const { accountUsers } = await services();
      await withDatabase(async (database) => {
        const list = await accountUsers(database.db, options.account);
        if (options.json) printJson({ data: list });
        else printTable(['USER ID', 'EMAIL', 'ROLE', 'NODE', 'CREATED'], list.map((u) => [u.id, u.email, u.role, u.node_name ?? '(whole account)', u.created_at]));
      });
    });

  users.command('password')
    .description('set a new password for a user who forgot theirs: every session of the user ends (a user who knows theirs changes it under Your account)')
    .argument('<id>', 'the user\'s id (repute users list --account … shows it)')
    .option('--password-file <path>', 'read the new password from the first line of this file instead of asking on the terminal')
    .addHelpText('after', '\nExample:\n  $ repute users password 0b9e…c1 --password-file ./new-password.txt')
    .action(async (id: string, options: { passwordFile?: string }) => {
      const password = await passwordOf(options.passwordFile, 'New password');
      const { resetPassword } = await passwords();
      await withDatabase(async (database) => {
        printJson({ ...(await resetPassword(database.db, id, password)), password_changed: true, sessions_ended: true });
      }, { password: 'the password' });
    });

  users.command('delete')
    .description('delete a dashboard user: its sessions end at once')
    .argument('<id>', 'the user\'s id')
    .action(async (id: string) => {
      const { deleteUser } = await services();
      await withDatabase(async (database) => {
        await deleteUser(database.db, id);
        printJson({ id, deleted: true });
      });
    });
}
