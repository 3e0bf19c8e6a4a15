// What every route, service and worker is handed: configuration, the database, and the caches and
// machinery of one process (src/create-context.ts assembles it, one set per database: caches never
// live in module-level state). The per-dialect stores come beside it (src/stores.ts: WithStores);
// a module that needs its store says so in its own type, so that this file, which every module
// imports, imports no module.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { PrincipalCache } from './access/principal-cache.ts';
import type { Config } from './config.ts';
import type { Database } from './db/connect.ts';
import type { DB } from './db/schema.ts';
import type { RateLimitStore } from './http/rate-limit.ts';
import type { Fingerprinter } from './lib/fingerprint.ts';
import type { TtlCache } from './lib/ttl-cache.ts';

/** What services need: the CLI builds this much, the HTTP server the whole AppContext. */
export interface ServiceContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  /** The keyed fingerprint of erased guests (derived once from REPUTE_SECRET_KEY). */
  fingerprint: Fingerprinter;
  /** node id → node type: a node's type never changes, so guest pushes to known properties skip the query. */
  nodeTypes: TtlCache<string>;
}

export interface AppContext extends ServiceContext {
  principals: PrincipalCache;
  rateLimits: RateLimitStore;
  log: FastifyBaseLogger;
}
