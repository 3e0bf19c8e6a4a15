// Sign-in: e-mail and password against the stored scrypt hash, throttled per e-mail and per client
// address in sliding windows (any 15 minutes, not clock-aligned ones, in the shared rate-limit
// store: Redis when configured, so every instance counts together, else this instance's memory). A
// try is counted before the password is looked at and forgotten if it was right: so concurrent
// tries cannot all pass a check made before any of them failed, and a locked e-mail or address is
// refused before the password is looked at, so not even the right password gets in until the lock ends.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { RateLimitStore } from '../../http/rate-limit.ts';
import { decoyHash, verifyPassword } from './password.ts';
import * as repo from './repository.ts';
import { EMAIL_MAX } from './schemas.ts';

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

  /** The e-mail as a digest: whatever a client types, a window's key stays short. */
  private keys(emailKey: string, address: string): Array<[string, number]> {
    const email = createHash('sha256').update(emailKey).digest('base64url');
    return [[`login-email:${email}`, this.limits.loginEmailFailureLimit], [`login-address:${address}`, this.limits.loginAddressFailureLimit]];
  }

  /**
   * Counts a try (under `tryId`) as failed until it is known not to be. Answers the seconds to wait
   * when the e-mail or the address is locked (the try is then refused and not counted), else 0. A
   * lock starts at the first try past the limit within the window and lasts a whole window from then.
   */
  async begin(emailKey: string, address: string, tryId: string): Promise<number> {
    const keys = this.keys(emailKey, address);
    const held = Math.max(...(await Promise.all(keys.map(([key]) => this.store.heldMs(key)))));
    if (held > 0) return Math.ceil(held / 1000);
    const windowMs = this.limits.loginFailureWindowS * 1000;
    const counts = await Promise.all(keys.map(([key]) => this.store.record(key, tryId, windowMs)));
    const over = keys.filter(([, max], i) => counts[i]! > max);
    if (over.length === 0) return 0;
    await this.takeBack(keys, tryId);
    await Promise.all(over.map(([key]) => this.store.hold(key, windowMs)));
    return this.limits.loginFailureWindowS;
  }

  /** A try that was right is not a failure. */
  async succeeded(emailKey: string, address: string, tryId: string): Promise<void> {
    await this.takeBack(this.keys(emailKey, address), tryId);
  }

  private async takeBack(keys: Array<[string, number]>, tryId: string): Promise<void> {
    await Promise.all(keys.map(([key]) => this.store.forget(key, tryId)));
  }
}

export async function signIn(db: Kysely<DB>, throttle: LoginThrottle, email: string, password: string, address: string): Promise<SignInResult> {
  const emailKey = email.trim().toLowerCase();
  const tryId = randomUUID();
  const retryS = await throttle.begin(emailKey, address, tryId);
  if (retryS > 0) return { ok: false, reason: 'locked', retryS };
  // No user's e-mail is longer (users' schemas): a longer one is not looked up.
  const user = emailKey === '' || emailKey.length > EMAIL_MAX ? undefined : await repo.findUserByEmail(db, emailKey);
  // An unknown e-mail costs a hash too: the answer's timing does not tell which part was wrong.
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!(user && matches)) return { ok: false, reason: 'wrong' };
  await throttle.succeeded(emailKey, address, tryId);
  return { ok: true, userId: user.id };
}
