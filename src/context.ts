// What every route, service and worker is handed: configuration, database and shared machinery.
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/connect.ts';
import type { DB } from './db/schema.ts';
import type { PrincipalCache } from './access/principal-cache.ts';
import type { RateLimitStore } from './http/rate-limit.ts';
import type { OutboxSignal } from './events/signal.ts';

export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  principals: PrincipalCache;
  rateLimits: RateLimitStore;
  outbox: OutboxSignal;
  log: FastifyBaseLogger;
}
