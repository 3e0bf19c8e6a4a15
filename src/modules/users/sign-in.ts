// Sign-in: e-mail and password against the stored scrypt hash, throttled per e-mail and per client
// address in fixed windows (the shared rate-limit store: Redis when configured, so every instance
// counts together, else this instance's memory). A try is counted before the password is looked at
// and taken back if it was right: so concurrent tries cannot all pass a check made before any of
// them failed, and a locked e-mail or address is refused before the password is looked at, so not
// even the right password gets in until the window ends.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countHit, type RateLimitStore } from '../../http/rate-limit.ts';
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
   * Counts a try as failed until it is known not to be. Answers the seconds to wait when the e-mail
   * or the address is locked (the try is then refused and not counted), else 0. A lock starts at the
   * first try past the limit and lasts a whole window from then.
   */
  async begin(emailKey: string, address: string): Promise<number> {
    const keys = this.keys(emailKey, address);
    const held = Math.max(...(await Promise.all(keys.map(([key]) => this.store.heldMs(key)))));
    if (held > 0) return Math.ceil(held / 1000);
    const hits = await Promise.all(keys.map(([key, max]) => countHit(this.store, key, max, this.limits.loginFailureWindowS)));
    if (!hits.some((hit) => hit.over)) return 0;
    await this.takeBack(keys);
    // Locked for a whole window from this refusal: the counting windows are aligned to the clock, so
    // a limit reached near a window's end would otherwise lock for seconds only.
    await Promise.all(keys.filter((_, i) => hits[i]!.over).map(([key]) => this.store.hold(key, this.limits.loginFailureWindowS * 1000)));
    return this.limits.loginFailureWindowS;
  }

  /** A try that was right is not a failure. */
  async succeeded(emailKey: string, address: string): Promise<void> {
    await this.takeBack(this.keys(emailKey, address));
  }

  private async takeBack(keys: Array<[string, number]>): Promise<void> {
    await Promise.all(keys.map(([key]) => this.store.undo(key, this.limits.loginFailureWindowS * 1000)));
  }
}

export async function signIn(db: Kysely<DB>, throttle: LoginThrottle, email: string, password: string, address: string): Promise<SignInResult> {
  const emailKey = email.trim().toLowerCase();
  const retryS = await throttle.begin(emailKey, address);
  if (retryS > 0) return { ok: false, reason: 'locked', retryS };
  // No user's e-mail is longer (users' schemas): a longer one is not looked up.
  const user = emailKey === '' || emailKey.length > EMAIL_MAX ? undefined : await repo.findUserByEmail(db, emailKey);
  // An unknown e-mail costs a hash too: the answer's timing does not tell which part was wrong.
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!(user && matches)) return { ok: false, reason: 'wrong' };
  await throttle.succeeded(emailKey, address);
  return { ok: true, userId: user.id };
}
