// Assembles one process's context from its configuration and an open database: the per-dialect
// stores (chosen once, src/stores.ts), the caches, the principal cache and the rate-limit store.
import type { Config } from './config.ts';
import type { AppContext, ServiceContext } from './context.ts';
import type { Database } from './db/connect.ts';
import { memoryStore, redisStore } from './http/rate-limit.ts';
import { fingerprinter } from './lib/fingerprint.ts';
import { TtlCache } from './lib/ttl-cache.ts';
import { principalCache } from './modules/keys/service.ts';
import { storesFor, type WithStores } from './stores.ts';

export function createServiceContext(config: Config, database: Database): ServiceContext & WithStores {
  return {
    config,
    database,
    db: database.db,
    stores: storesFor(database),
    fingerprint: fingerprinter(config.secretKey),
    nodeTypes: new TtlCache<string>(60_000, 10_000),
  };
}

export function createContext(config: Config, database: Database): Omit<AppContext, 'log'> & WithStores {
  return {
    ...createServiceContext(config, database),
    principals: principalCache(database.db),
    rateLimits: config.redisUrl ? redisStore(config.redisUrl) : memoryStore(),
  };
}
