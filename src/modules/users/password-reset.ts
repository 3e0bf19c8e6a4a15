// "Forgot your password?": a link by e-mail to choose a new one. The link carries 32 random bytes
// (256 bits); the database keeps only their SHA-256, with the user and an end RESET_TTL_S later.
// Asking says nothing about whether a user has the e-mail (the same answer, and the e-mail is sent
// after it). Asking is limited per e-mail (RESET_EMAIL_LIMIT an hour: nobody's mailbox is flooded)
// and per client address (RESET_ADDRESS_LIMIT an hour). A link works once: choosing the password
// ends it, every other link of the user and every session of the user.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.ts';
import type { DB } from '../../db/schema.ts';
import type { RateLimitStore } from '../../http/rate-limit.ts';
import { isSecretTokenShaped, newSecretToken, secretTokenHash } from '../../lib/secret-token.ts';
import { hashPassword } from './password.ts';
import { checkNewPassword } from './password-change.ts';
import * as repo from './repository.ts';
import { EMAIL_MAX } from './schemas.ts';

/** How long a link works. */
export const RESET_TTL_S = 3600;
/** Links sent to one e-mail within an hour, at most. */
export const RESET_EMAIL_LIMIT = 3;
/** Requests from one client address within an hour, at most (whatever the e-mails). */
export const RESET_ADDRESS_LIMIT = 20;
const WINDOW_MS = 3600_000;


/** A link to send: to whom, in which language (the user's setting, or null), and its token. */
export interface ResetLink {
  to: string;
  language: string | null;
  token: string;
}

export type ResetRequest =
  /** A link to send, or null when there is nothing to send (no such user, or its e-mail's hour is full): the asker is told the same. */
  | { ok: true; link: ResetLink | null }
  /** Too many requests from this address. */
  | { ok: false; retryS: number };

export async function requestPasswordReset(db: Kysely<DB>, limits: RateLimitStore, email: string, address: string): Promise<ResetRequest> {
  const emailKey = email.trim().toLowerCase();
  if ((await limits.record(`reset-address:${address}`, randomUUID(), WINDOW_MS)) > RESET_ADDRESS_LIMIT) return { ok: false, retryS: WINDOW_MS / 1000 };
  if (emailKey === '' || emailKey.length > EMAIL_MAX) return { ok: true, link: null };
  const user = await repo.findUserByEmail(db, emailKey);
  if (!user) return { ok: true, link: null };
  // Counted only for a user's e-mail: a made-up one has no mailbox to flood.
  const key = `reset-email:${createHash('sha256').update(emailKey).digest('base64url')}`;
  if ((await limits.record(key, randomUUID(), WINDOW_MS)) > RESET_EMAIL_LIMIT) return { ok: true, link: null };
  const token = newSecretToken();
  const now = Date.now();
  await repo.deleteEndedPasswordResets(db, new Date(now).toISOString());
  await repo.insertPasswordReset(db, {
    token_hash: secretTokenHash(token), user_id: user.id, created_at: new Date(now).toISOString(), expires_at: new Date(now + RESET_TTL_S * 1000).toISOString(),
  });
  return { ok: true, link: { to: user.email, language: user.language, token } };
}

/** The e-mail of the user a live link is for, or null (unknown, used, past its end, or not a token at all). */
export async function passwordResetFor(db: Kysely<DB>, token: string): Promise<string | null> {
  if (!isSecretTokenShaped(token)) return null;
  return (await repo.findPasswordReset(db, secretTokenHash(token), new Date().toISOString()))?.email ?? null;
}

/**
 * Sets the new password of a live link's user; false when the link is not (or no longer) live. Every
 * link of the user and every session of the user end with it.
 */
export async function completePasswordReset(db: Kysely<DB>, token: string, next: string, repeated: string): Promise<boolean> {
  checkNewPassword(next, repeated);
  if (!isSecretTokenShaped(token)) return false;
  const hash = await hashPassword(next);
  return inTransaction(db, async (trx) => {
    const userId = await repo.takePasswordReset(trx, secretTokenHash(token), new Date().toISOString());
    if (userId === undefined) return false;
    await repo.replacePassword(trx, userId, hash, null);
    return true;
  });
}
