// What every route, service and worker is handed (configuration, the database, its per-dialect
// stores, and the caches and machinery of one process), and its assembly. Caches live here, one
// set per database, never in module-level state.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/connect.ts';
import type { DB } from './db/schema.ts';
import type { PrincipalCache } from './access/principal-cache.ts';
import { AuthThrottle } from './http/auth-throttle.ts';
import { memoryStore, redisStore, type RateLimitStore } from './http/rate-limit.ts';
import { type Fingerprinter, fingerprinter } from './lib/fingerprint.ts';
import { TtlCache } from './lib/ttl-cache.ts';
import { principalCache } from './modules/keys/service.ts';
import type { PropertyName } from './modules/nodes/service.ts';
import { type SessionCache, sessionCache } from './modules/users/session-changes.ts';
import { type Stores, storesFor } from './stores.ts';

/** What services need: the CLI builds this much, the HTTP server the whole AppContext. */
export interface ServiceContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  stores: Stores;
  /** The keyed fingerprint of erased guests (derived once from REPUTE_SECRET_KEY). */
  fingerprint: Fingerprinter;
  /** node id → node type: a node's type never changes, so guest pushes to known properties skip the query. */
  nodeTypes: TtlCache<string>;
}

export interface AppContext extends ServiceContext {
  principals: PrincipalCache;
  /** node id → the properties at or below it, for the dashboard's filters and labels; kept 2 s like a principal. */
  propertyNames: TtlCache<PropertyName[]>;
  /** Failed API-key authentications per client address. */
  keyFailures: AuthThrottle | null;
  rateLimits: RateLimitStore;
  log: FastifyBaseLogger;
  /** Dashboard sessions kept in memory until the database signals a change (buildApp starts and stops it). */
  sessions: SessionCache;
}

export function createServiceContext(config: Config, database: Database): ServiceContext {
  return {
    config,
    database,
    db: database.db,
    stores: storesFor(database),
    fingerprint: fingerprinter(config.secretKey),
    nodeTypes: new TtlCache<string>(60_000, 10_000),
  };
}

export function createContext(config: Config, database: Database): Omit<AppContext, 'log'> {
  const rateLimits = config.redisUrl ? redisStore(config.redisUrl) : memoryStore();
  return {
    ...createServiceContext(config, database),
    principals: principalCache(database.db),
    propertyNames: new TtlCache<PropertyName[]>(2000, 10_000),
    sessions: sessionCache(database),
    keyFailures: new AuthThrottle(rateLimits, 'key', config.authFailureLimit, config.authFailureWindowS),
    rateLimits,
  };
}
