// `repute guests show|unsubscribe|erase`: the operator's guest tools on the DATABASE_URL database.
import type { Command } from 'commander';
import { isUuid } from '../lib/ids.ts';
import type { GuestContext } from '../modules/guests/service.ts';
import type * as GuestService from '../modules/guests/service.ts';
import { CliError, EXIT_USAGE, printJson, withDatabase } from './support.ts';

interface IdentityOptions {
  account: string;
  property: string;
  email: string;
}

type Action = (ctx: GuestContext, accountId: string, propertyId: string, email: string) => Promise<unknown>;

/**
 * Validates the options like the admin API validates its body, then runs the action (picked from
 * the guest service, loaded here rather than at the top so `repute --help` stays fast).
 */
async function run(options: IdentityOptions, pick: (service: typeof GuestService) => Action): Promise<unknown> {
  const [{ isValidEmail, normaliseEmail }, { createServiceContext }, service] = await Promise.all([
    import('../modules/guests/schemas.ts'), import('../context.ts'), import('../modules/guests/service.ts'),
  ]);
  const email = normaliseEmail(options.email);
  if (!isUuid(options.property)) throw new CliError(`--property must be a node id (UUID), got "${options.property}"`, EXIT_USAGE);
  if (!isValidEmail(email)) throw new CliError(`--email must be an e-mail address of at most 320 characters, got "${options.email}"`, EXIT_USAGE);
  return withDatabase(async (database, config) =>
    pick(service)(createServiceContext(config, database), options.account, options.property, email), { property_id: '--property' });
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
    .action(async (options: IdentityOptions) => printJson(await run(options, (s) => s.showGuest)));

  identityCommand(guests, 'unsubscribe', 'withdraw the guest\'s invitation-email consent (emits guest.unsubscribed when it changes)')
    .action(async (options: IdentityOptions) => printJson(await run(options, (s) => s.unsubscribeGuest)));

  identityCommand(guests, 'erase', 'GDPR erasure: delete the guest and all its stays; later pushes of this e-mail answer 409 for ever')
    .addHelpText('after', '\nOnly a keyed fingerprint of (property, e-mail) is kept. Erasing an unknown guest still records it.')
    .action(async (options: IdentityOptions) => printJson(await run(options, (s) => s.eraseGuest)));
}
