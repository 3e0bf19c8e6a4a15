// Assembles the shared machinery of one process from its configuration and an open database.
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/connect.ts';
import { memoryStore, redisStore } from './http/rate-limit.ts';
import { OutboxSignal } from './events/signal.ts';
import { principalCache } from './modules/keys/service.ts';

export function createContext(config: Config, database: Database): Omit<AppContext, 'log'> {
  return {
    config,
    database,
    db: database.db,
    principals: principalCache(database.db),
    rateLimits: config.redisUrl ? redisStore(config.redisUrl) : memoryStore(),
    outbox: new OutboxSignal(),
  };
}
