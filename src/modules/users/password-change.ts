// A user's password after creation: changed by the user (Your account → Change password: the
// current password first, throttled like sign-in, then the new one twice; every other session of the
// user ends, the one in use stays) or reset by the operator (`repute users password`: every session
// ends). The rules of a new password are the same wherever one is set.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.ts';
import type { DB } from '../../db/schema.ts';
import { FieldsInvalid, notFound } from '../../lib/errors.ts';
import { lookup } from '../../lib/ids.ts';
import { hashPassword, verifyPassword } from './password.ts';
import * as repo from './repository.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './schemas.ts';
import type { LoginThrottle } from './sign-in.ts';

/** What is wrong with a new password, as the message for `field`, or null when it may be used. */
export function passwordFault(password: string, field: string): string | null {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`;
  // Twelve spaces pass the length and guard nothing.
  if (password.trim() === '') return `${field} must not be only spaces`;
  return null;
}

/** A new password as typed twice on a form: FieldsInvalid naming new_password or repeat_password when it may not be used. */
export function checkNewPassword(next: string, repeated: string): void {
  const fault = passwordFault(next, 'new_password');
  if (fault) throw new FieldsInvalid([{ field: 'new_password', message: fault }]);
  if (repeated !== next) throw new FieldsInvalid([{ field: 'repeat_password', message: 'repeat_password must be the same as new_password' }]);
}

export interface PasswordChange {
  current: string;
  next: string;
  repeated: string;
}

export type PasswordChangeResult =
  | { ok: true }
  /** The current password was wrong. */
  | { ok: false; reason: 'wrong' }
  /** Too many wrong passwords for this user's e-mail or from this address (sign-in's lock): wait retryS seconds. */
  | { ok: false; reason: 'locked'; retryS: number };

/**
 * The signed-in user changes its own password. The new one is checked first (a rule broken costs no
 * try); the current one is then checked as sign-in checks it, counted in the same windows, so a
 * session left open on a shared computer does not let anyone guess the password faster than the
 * sign-in form would. On success every other session of the user ends: whoever else was signed in
 * with the old password is signed out, and the session in use (`keepSessionHash`) stays.
 */
export async function changeOwnPassword(
  db: Kysely<DB>, throttle: LoginThrottle, user: { userId: string; email: string; sessionHash: string }, change: PasswordChange, address: string,
): Promise<PasswordChangeResult> {
  checkNewPassword(change.next, change.repeated);

  const emailKey = user.email.toLowerCase();
  const tryId = randomUUID();
  const retryS = await throttle.begin(emailKey, address, tryId);
  if (retryS > 0) return { ok: false, reason: 'locked', retryS };
  const row = await repo.findUser(db, user.userId);
  if (!row || !(await verifyPassword(change.current, row.password_hash))) return { ok: false, reason: 'wrong' };
  await throttle.succeeded(emailKey, address, tryId);
  if (change.next === change.current) throw new FieldsInvalid([{ field: 'new_password', message: 'new_password must differ from the current password' }]);

  const hash = await hashPassword(change.next);
  await inTransaction(db, (trx) => repo.replacePassword(trx, row.id, hash, user.sessionHash));
  return { ok: true };
}

/** The operator sets a new password for a user (one who forgot it): every session of the user ends. 404 for an unknown user. */
export async function resetPassword(db: Kysely<DB>, id: string, password: string): Promise<{ id: string; email: string }> {
  const fault = passwordFault(password, 'password');
  if (fault) throw new FieldsInvalid([{ field: 'password', message: fault }]);
  const row = await lookup(id, (uuid) => repo.findUser(db, uuid));
  if (!row) throw notFound('user');
  const hash = await hashPassword(password);
  await inTransaction(db, (trx) => repo.replacePassword(trx, row.id, hash, null));
  return { id: row.id, email: row.email };
}
