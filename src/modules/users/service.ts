// Dashboard users: created by the operator (admin API, CLI, demo) or by an owner (Settings → Users),
// one account each, an e-mail unique in the instance whatever its case, optionally bound to a node
// (then they reach that node's subtree only, exactly like a key bound there). Deleting a user ends
// its sessions in the same statement batch.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { DB, UserRow } from '../../db/schema.ts';
import { conflict, FieldsInvalid, invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import { NOT_WITHIN_REACH, requireAccountNode } from '../nodes/service.ts';
import { hashPassword } from './password.ts';
import { passwordFault } from './password-change.ts';
import * as repo from './repository.ts';
import { LANGUAGES, type Language, type Role, ROLES, type User, type UserInput } from './schemas.ts';

export const toUser = (row: UserRow): User => ({ id: row.id, email: row.email, role: row.role as Role, node_id: row.node_id, created_at: row.created_at });

/** True when `role` may do what `least` may (viewer < manager < owner). */
export const roleAtLeast = (role: string, least: Role): boolean => ROLES.indexOf(role as Role) >= ROLES.indexOf(least);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The checks the schema makes, made again here so the CLI and the Settings form get the same answer. */
function checkInput(input: UserInput): void {
  const faults: Array<{ field: string; message: string }> = [];
  if (input.email.length > 254 || !EMAIL.test(input.email)) faults.push({ field: 'email', message: 'email must be an e-mail address (name@domain)' });
  const passwordRule = passwordFault(input.password, 'password');
  if (passwordRule) faults.push({ field: 'password', message: passwordRule });
  if (!(ROLES as readonly string[]).includes(input.role)) faults.push({ field: 'role', message: `role must be one of: ${ROLES.join(', ')}` });
  if (faults.length > 0) throw new FieldsInvalid(faults);
}

export async function createUser(db: Kysely<DB>, accountId: string, input: UserInput): Promise<User> {
  checkInput(input);
  await requireAccount(db, accountId);
  const nodeId = input.node_id ?? null;
  if (nodeId !== null) await requireAccountNode(db, accountId, nodeId);
  const row: UserRow = {
    id: newId(), account_id: accountId, email: input.email.trim(), email_key: input.email.trim().toLowerCase(),
    password_hash: await hashPassword(input.password), role: input.role, node_id: nodeId, language: null, created_at: nowIso(),
  };
  try {
    await repo.insertUser(db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('email is already the e-mail of a user');
    throw error;
  }
  return toUser(row);
}

/** Deletes a user (the operator's way): its sessions end at once. */
export async function deleteUser(db: Kysely<DB>, id: string): Promise<void> {
  const deleted = await lookup(id, (uuid) => inTransaction(db, (trx) => repo.deleteUser(trx, uuid)));
  if (!deleted) throw notFound('user');
}

export async function setLanguage(db: Kysely<DB>, userId: string, language: string | null): Promise<void> {
  if (language !== null && !(LANGUAGES as readonly string[]).includes(language)) throw invalid(`language must be one of: ${LANGUAGES.join(', ')}`);
  await repo.updateUser(db, userId, { language: language as Language | null });
}

// --- an owner's Settings → Users: the same rules, within the owner's reach ---------------------

export interface ListedUser extends User {
  node_name: string | null;
}

/** A user is within reach when its node is in the principal's subtree (a user of the whole account: only from the root). */
function withinReach(principal: Principal, row: { account_id: string; node_id: string | null }): boolean {
  return row.account_id === principal.accountId && (row.node_id === null ? principal.isAccountRoot : principal.inSubtree(row.node_id));
}

/** Every user of the account, for the operator (`repute users list`); 404 for an unknown account. */
export async function accountUsers(db: Kysely<DB>, accountId: string): Promise<ListedUser[]> {
  await requireAccount(db, accountId);
  return (await repo.listAccountUsers(db, accountId)).map((row) => ({ ...toUser(row), node_name: row.node_name }));
}

export async function listUsers(db: Kysely<DB>, principal: Principal): Promise<ListedUser[]> {
  return (await repo.listAccountUsers(db, principal.accountId)).filter((row) => withinReach(principal, row))
    .map((row) => ({ ...toUser(row), node_name: row.node_name }));
}

/** The user by id when within reach, else 404 (another account's or subtree's ids included). */
async function userWithin(db: Kysely<DB>, principal: Principal, id: string): Promise<UserRow> {
  const row = await lookup(id, (uuid) => repo.findUser(db, uuid));
  if (!row || !withinReach(principal, row)) throw notFound('user');
  return row;
}

export async function createUserWithin(db: Kysely<DB>, principal: Principal, input: UserInput): Promise<User> {
  const nodeId = input.node_id ?? null;
  if (nodeId === null ? !principal.isAccountRoot : !principal.inSubtree(nodeId)) throw invalid(NOT_WITHIN_REACH);
  return createUser(db, principal.accountId, input);
}

export async function changeRoleWithin(db: Kysely<DB>, principal: Principal, actorId: string, id: string, role: string): Promise<void> {
  const row = await userWithin(db, principal, id);
  if (!(ROLES as readonly string[]).includes(role)) throw invalid(`role must be one of: ${ROLES.join(', ')}`);
  // Nobody demotes themselves: the account would risk losing its last owner.
  if (row.id === actorId && role !== row.role) throw invalid('role of your own user cannot be changed; ask another owner');
  await repo.updateUser(db, row.id, { role: role as Role });
}

export async function removeUserWithin(db: Kysely<DB>, principal: Principal, actorId: string, id: string): Promise<void> {
  const row = await userWithin(db, principal, id);
  if (row.id === actorId) throw invalid('you cannot remove your own user; ask another owner');
  await inTransaction(db, (trx) => repo.deleteUser(trx, row.id));
}
