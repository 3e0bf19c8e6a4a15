// Every `repute` sub-command, in one list; each file under src/cli/ registers its own.
import type { Command } from 'commander';
import { registerGuests } from './guests.ts';
import { registerServe } from './serve.ts';
import { registerWorker } from './worker.ts';
import { registerAccounts } from './accounts.ts';
import { registerNodes } from './nodes.ts';
import { registerKeys } from './keys.ts';
import { registerImport } from './import.ts';
import { registerDemo } from './demo.ts';
import { registerInsights } from './insights.ts';
import { registerInvitations } from './invitations.ts';
import { registerUsers } from './users.ts';
import { registerWebhooks } from './webhooks.ts';

export const commands: Array<(program: Command) => void> = [
  registerServe,
  registerWorker,
  registerAccounts,
  registerNodes,
  registerKeys,
  registerUsers,
  registerImport,
  registerDemo,
  registerGuests,
  registerInsights,
  registerInvitations,
  registerWebhooks,
];
