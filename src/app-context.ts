// Assembles the shared machinery of one process from its configuration and an open database.
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/connect.ts';
import { PrincipalCache } from './http/auth.ts';
import { AuthThrottle } from './http/auth-throttle.ts';
import { memoryStore, redisStore } from './http/rate-limit.ts';
import { OutboxSignal } from './events/signal.ts';

export function createContext(config: Config, database: Database): Omit<AppContext, 'log'> {
  const rateLimits = config.redisUrl ? redisStore(config.redisUrl) : memoryStore();
  const keyFailures = new AuthThrottle(rateLimits, 'key', config.authFailureLimit, config.authFailureWindowS);
  return {
    config,
    database,
    db: database.db,
    principals: new PrincipalCache(database.db, undefined, keyFailures),
    rateLimits,
    outbox: new OutboxSignal(),
  };
}
