// What every module's routes are handed: configuration, the database, the principal cache, the
// failed-authentication throttle, the rate-limit store and the dashboard's kept sessions. The process context (src/context.ts) is
// one; modules never import that file, which is assembled from them.
import type { Kysely } from 'kysely';
import type { PrincipalCache } from '../access/principal-cache.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { RateLimitStore } from './rate-limit.ts';

export interface RouteContext {
  config: Config;
  db: Kysely<DB>;
  principals: PrincipalCache;
  /** Failed API-key authentications per client address (null: not throttled). */
  keyFailures: AuthThrottle | null;
  rateLimits: RateLimitStore;
  /** The dashboard's kept sessions (src/modules/users/session-changes.ts): cleared after a change that can end or alter one. */
  sessions: { clear(): void };
}
