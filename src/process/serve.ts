// `repute serve`: migrate, listen, start the inline workers, and shut down gracefully on SIGTERM/SIGINT (requests in flight finish).
import type { FastifyInstance } from 'fastify';
import { type Config, maskPassword } from '../config.ts';
import { createContext } from '../context.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { startWorker } from '../delivery/worker.ts';
import { startInvitationsWorker } from './invitations-worker.ts';
import { startRetentionWorker } from './retention-worker.ts';
import { checkSecretKey } from './secret-key-check.ts';
import { buildApp } from '../app.ts';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const database = connect(config.databaseUrl);
  await migrateToLatest(database.db);
  const ctx = createContext(config, database);
  const app = await buildApp(ctx);
  await checkSecretKey(database.db, config.secretKey, app.log);
  // Before any worker starts: a REDIS_URL naming a database Redis lacks stops start-up here.
  if (!(await ctx.rateLimits.connected()) && config.redisUrl !== null) {
    app.log.warn({}, `REDIS_URL ${maskPassword(config.redisUrl)} did not answer at start: this instance counts rate limits in its own memory until Redis answers`);
  }
  if (config.adminToken === null) app.log.info({}, 'the admin API (/admin/v1) is off: REPUTE_ADMIN_TOKEN is not set');
  // Listening comes before the workers too: a server that cannot serve (its port taken) must not
  // have sent a webhook or an invitation first, as a supervisor restarting it would repeat.
  const url = await app.listen({ port: config.port, host: config.host });
  // Inline: this process delivers webhooks too, woken by its own commits; otherwise the database
  // tells other processes' workers (PostgreSQL NOTIFY, src/db/pg-commits.ts).
  const worker = config.worker === 'inline' ? startWorker({ store: ctx.stores.deliveries, commits: database.commits, config, log: app.log }) : null;
  // Loaded only for the inline worker: the engine's language detector and lexicons take about 40 MB
  // of heap that a process serving requests alone (REPUTE_WORKER=off) never reads.
  const insights = config.worker === 'inline'
    ? (await import('./insights-worker.ts')).startInsightsWorker({ db: database.db, commits: database.commits, log: app.log })
    : null;
  const invitations = config.worker === 'inline' ? startInvitationsWorker({ db: database.db, commits: database.commits, log: app.log }, config) : null;
  const retention = config.worker === 'inline' ? startRetentionWorker({ db: database.db, log: app.log }, config) : null;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      app.log.info('shutting down: finishing requests in flight');
      await app.close();
      await worker?.stop();
      await insights?.stop();
      await invitations?.stop();
      await retention?.stop();
      await ctx.rateLimits.close();
      await database.destroy();
      // The last line an operator reads: everything above finished (a hung step never prints it).
      app.log.info('stopped: requests answered, workers stopped, database closed');
    })();
    return stopping;
  };
  return { app, url, stop };
}

/** Stops the server on SIGTERM or SIGINT, then exits. */
export function stopOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'signal received');
    server.stop().then(() => process.exit(0), (error) => {
      server.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
