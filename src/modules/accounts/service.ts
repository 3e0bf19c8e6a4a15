// Accounts: created and changed by the operator; the plan decides which features keys may use.
import type { Kysely } from 'kysely';
import { FEATURES } from '../../access/scopes.ts';
import type { Config } from '../../config.ts';
import type { AccountRow, DB } from '../../db/schema.ts';
import { adminPage, decodeAdminCursor } from '../../http/admin-cursor.ts';
import { notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import * as repo from './repository.ts';
import type { Account, AccountInput, AccountPatch } from './schemas.ts';

export function toAccount(row: AccountRow, config: Pick<Config, 'webhookEndpointLimit'>): Account {
  return {
    id: row.id, name: row.name, plan_features: JSON.parse(row.plan_features) as string[],
    webhook_endpoint_limit: row.webhook_endpoint_limit ?? config.webhookEndpointLimit, created_at: row.created_at,
  };
}

/** The account, or not found: every operator write under /accounts/{id} starts here, in its service. */
export async function requireAccount(db: Kysely<DB>, id: string): Promise<AccountRow> {
  const row = await lookup(id, (uuid) => repo.findAccount(db, uuid));
  if (!row) throw notFound('account');
  return row;
}

export async function createAccount(db: Kysely<DB>, input: AccountInput): Promise<AccountRow> {
  const row: AccountRow = {
    id: newId(), name: input.name, plan_features: JSON.stringify(input.plan_features ?? FEATURES),
    webhook_endpoint_limit: input.webhook_endpoint_limit ?? null, created_at: nowIso(),
  };
  await repo.insertAccount(db, row);
  return row;
}

export async function updateAccount(db: Kysely<DB>, id: string, patch: AccountPatch): Promise<AccountRow> {
  const row = await requireAccount(db, id);
  // A null field is an omitted one (operator.md): it stays as it is.
  const changes = {
    ...(patch.name != null ? { name: patch.name } : {}),
    ...(patch.plan_features != null ? { plan_features: JSON.stringify(patch.plan_features) } : {}),
    ...(patch.webhook_endpoint_limit != null ? { webhook_endpoint_limit: patch.webhook_endpoint_limit } : {}),
  };
  if (Object.keys(changes).length > 0) await repo.updateAccount(db, id, changes);
  return { ...row, ...changes };
}

/** The operator's list of accounts, newest first (limit 1–500). */
export async function listAccounts(db: Kysely<DB>, config: Pick<Config, 'webhookEndpointLimit'>, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 100;
  return adminPage(await repo.listAccountPage(db, decodeAdminCursor(query.cursor), limit), limit, (row) => toAccount(row, config));
}
