// Failed authentications per client address: past the limit in a window, that address is refused
// with 429 until the window ends, before its key is looked up (a flood of made-up keys costs no
// database read) and before an admin token is compared (no guessing at speed).
import type { FastifyRequest } from 'fastify';
import { domainError } from './errors.ts';
import { countHit, type RateLimitStore } from './rate-limit.ts';

/** Most addresses remembered as refused at once; beyond, the oldest are forgotten first. */
const MAX_BLOCKED = 10_000;

export class AuthThrottle {
  /** Address → when its refusal ends (ms). Kept here so a refused request costs no store round trip. */
  private readonly blocked = new Map<string, number>();

  /**
   * @param scope separates the counts of different secrets (API keys, the admin token).
   */
  constructor(
    private readonly store: RateLimitStore,
    private readonly scope: string,
    private readonly max: number,
    private readonly windowS: number,
  ) {}

  /** Throws 429 when the request's address is refused for now. */
  check(request: FastifyRequest): void {
    const until = this.blocked.get(request.ip);
    if (until === undefined) return;
    const waitMs = until - Date.now();
    if (waitMs <= 0) return void this.blocked.delete(request.ip);
    throw this.refusal(Math.ceil(waitMs / 1000));
  }

  /** Counts a failed authentication from the request's address; the one past the limit answers 429. */
  async failed(request: FastifyRequest): Promise<void> {
    const hit = await countHit(this.store, `auth-fail:${this.scope}:${request.ip}`, this.max, this.windowS);
    if (!hit.over) return;
    if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(request.ip, Date.now() + hit.resetS * 1000);
    throw this.refusal(hit.resetS);
  }

  private refusal(retryS: number) {
    return domainError('auth_throttled', `too many failed authentications from this address (limit ${this.max} per ${this.windowS} s); retry in ${retryS} s`, {
      'Retry-After': String(retryS),
    });
  }
}
