// `repute guests show|unsubscribe|erase`: the operator's guest tools on the DATABASE_URL database.
import type { Command } from 'commander';
import type { GuestDeps } from '../modules/guests/deps.ts';
import type * as Operator from '../modules/guests/operator.ts';
import { isUuid } from '../lib/ids.ts';
import { CliError, EXIT_USAGE, printJson, withDatabase } from './support.ts';

interface IdentityOptions {
  account: string;
  property: string;
  email: string;
}

type Action = (deps: GuestDeps, accountId: string, propertyId: string, email: string) => Promise<unknown>;

/**
 * Validates the options like the admin API validates its body, then runs the action (picked from
 * the guest operator tools, loaded here rather than at the top so `repute --help` stays fast).
 */
async function run(options: IdentityOptions, pick: (operator: typeof Operator) => Action): Promise<unknown> {
  const [{ isValidEmail, normaliseEmail }, { requireAccount }, { guestDeps }, operator] = await Promise.all([
    import('../modules/guests/validate.ts'), import('../modules/accounts/service.ts'),
    import('../modules/guests/deps.ts'), import('../modules/guests/operator.ts'),
  ]);
  const email = normaliseEmail(options.email);
  if (!isUuid(options.property)) throw new CliError(`--property must be a node id (UUID), got "${options.property}"`, EXIT_USAGE);
  if (!isValidEmail(email)) throw new CliError(`--email must be an e-mail address of at most 320 characters, got "${options.email}"`, EXIT_USAGE);
  return withDatabase(async (database, config) => {
    await requireAccount(database.db, options.account);
    return pick(operator)(guestDeps(config, database), options.account, options.property, email);
  });
}

function identityCommand(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description)
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--property <id>', 'property node id')
    .requiredOption('--email <address>', 'guest e-mail (trimmed and lower-cased, as the push stores it)');
}

export function registerGuests(program: Command): void {
  const guests = program.command('guests').description('look up, unsubscribe or erase (GDPR) a guest of a property');

  identityCommand(guests, 'show', 'print the stored guest: consent, custom fields and stays (exit 1 if none)')
    .action(async (options: IdentityOptions) => printJson(await run(options, (o) => o.showGuest)));

  identityCommand(guests, 'unsubscribe', 'withdraw the guest\'s invitation-email consent (emits guest.unsubscribed when it changes)')
    .action(async (options: IdentityOptions) => {
      printJson(await run(options, (o) => async (...args) => (await o.unsubscribeGuest(...args)).guest));
    });

  identityCommand(guests, 'erase', 'GDPR erasure: delete the guest and all its stays; later pushes of this e-mail answer 409 for ever')
    .addHelpText('after', '\nOnly a keyed fingerprint of (property, e-mail) is kept. Erasing an unknown guest still records it.')
    .action(async (options: IdentityOptions) => printJson(await run(options, (o) => o.eraseGuest)));
}
