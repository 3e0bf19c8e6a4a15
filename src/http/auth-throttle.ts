// Failed authentications per client address: past the limit within any window (a sliding one: a
// fixed window would let twice the limit through around its end), that address is refused with 429
// for a whole window, before its key is looked up (a flood of made-up keys costs no database read)
// and before an admin token is compared (no guessing at speed).
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { clientAddress } from './client-address.ts';
import { domainError } from './errors.ts';
import type { RateLimitStore } from './rate-limit.ts';

/** Most addresses remembered as refused at once; beyond, the oldest are forgotten first. */
const MAX_BLOCKED = 10_000;
/** How long a secret that authenticated still passes a refused address; and how many are remembered. */
const VOUCH_MS = 15 * 60_000;
const MAX_VOUCHED = 10_000;

export class AuthThrottle {
  /** Address → when its refusal ends (ms). Kept here so a refused request costs no store round trip. */
  private readonly blocked = new Map<string, number>();
  /**
   * Secret → until when it is vouched for. A secret that authenticated lately is still looked up from
   * a refused address (and answered as it deserves: a revoked key gets its 401): one client sending
   * bad keys from a shared address (a NAT, a proxy) must not lock out the others working there.
   */
  private readonly vouched = new Map<string, number>();

  /**
   * @param scope separates the counts of different secrets (API keys, the admin token).
   */
  constructor(
    private readonly store: RateLimitStore,
    private readonly scope: string,
    private readonly max: number,
    private readonly windowS: number,
  ) {}

  /** Throws 429 when the request's address is refused for now, unless `secret` authenticated lately. */
  check(request: FastifyRequest, secret: string): void {
    const address = clientAddress(request.ip);
    const until = this.blocked.get(address);
    if (until === undefined) return;
    const waitMs = until - Date.now();
    if (waitMs <= 0) return void this.blocked.delete(address);
    if ((this.vouched.get(secret) ?? 0) > Date.now()) return;
    throw this.refusal(Math.ceil(waitMs / 1000));
  }

  /** Remembers a secret that just authenticated (see `vouched`). */
  succeeded(secret: string): void {
    this.vouched.delete(secret); // re-inserted last: the oldest are forgotten first
    if (this.vouched.size >= MAX_VOUCHED) this.vouched.delete(this.vouched.keys().next().value!);
    this.vouched.set(secret, Date.now() + VOUCH_MS);
  }

  /**
   * Counts a failed authentication from the request's address; the one past the limit within the
   * window answers 429, and the address stays refused for a window from then (by when every failure
   * it counted has left the window).
   */
  async failed(request: FastifyRequest): Promise<void> {
    const address = clientAddress(request.ip);
    const count = await this.store.record(`auth-fail:${this.scope}:${address}`, randomUUID(), this.windowS * 1000);
    if (count <= this.max) return;
    if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(address, Date.now() + this.windowS * 1000);
    throw this.refusal(this.windowS);
  }

  private refusal(retryS: number) {
    return domainError('auth_throttled', `too many failed authentications from this address (limit ${this.max} within ${this.windowS} s); retry in ${retryS} s`, {
      'Retry-After': String(retryS),
    });
  }
}
