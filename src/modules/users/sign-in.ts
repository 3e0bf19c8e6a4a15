// Sign-in: e-mail and password against the stored scrypt hash, throttled per e-mail and per client
// address in fixed windows (the shared rate-limit store: Redis when configured, so every instance
// counts together, else this instance's memory). A locked e-mail or address is refused before the
// password is looked at, so not even the right password gets in until the window ends.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countHit, type RateLimitStore } from '../../http/rate-limit.ts';
import { decoyHash, verifyPassword } from './password.ts';
import * as repo from './repository.ts';

export interface LoginLimits {
  loginEmailFailureLimit: number;
  loginAddressFailureLimit: number;
  loginFailureWindowS: number;
}

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: 'wrong' }
  /** Too many failures for this e-mail or from this address: wait retryS seconds. */
  | { ok: false; reason: 'locked'; retryS: number };

export class LoginThrottle {
  constructor(private readonly store: RateLimitStore, private readonly limits: LoginLimits) {}

  private keys(emailKey: string, address: string): Array<[string, number]> {
    return [[`login-email:${emailKey}`, this.limits.loginEmailFailureLimit], [`login-address:${address}`, this.limits.loginAddressFailureLimit]];
  }

  /** Seconds until the e-mail and the address may try again; 0 when neither is locked. */
  async lockedFor(emailKey: string, address: string): Promise<number> {
    const windowMs = this.limits.loginFailureWindowS * 1000;
    let wait = 0;
    for (const [key, max] of this.keys(emailKey, address)) {
      const { count, resetMs } = await this.store.peek(key, windowMs);
      if (count >= max) wait = Math.max(wait, Math.ceil(resetMs / 1000));
    }
    return wait;
  }

  async failed(emailKey: string, address: string): Promise<void> {
    for (const [key, max] of this.keys(emailKey, address)) await countHit(this.store, key, max, this.limits.loginFailureWindowS);
  }
}

export async function signIn(db: Kysely<DB>, throttle: LoginThrottle, email: string, password: string, address: string): Promise<SignInResult> {
  const emailKey = email.trim().toLowerCase();
  const retryS = await throttle.lockedFor(emailKey, address);
  if (retryS > 0) return { ok: false, reason: 'locked', retryS };
  const user = emailKey === '' ? undefined : await repo.findUserByEmail(db, emailKey);
  // An unknown e-mail costs a hash too: the answer's timing does not tell which part was wrong.
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (user && matches) return { ok: true, userId: user.id };
  await throttle.failed(emailKey, address);
  return { ok: false, reason: 'wrong' };
}
