// Child-process entry of a bench server: the real app (buildApp + createContext, as `repute serve`
// builds it, on an already migrated database) plus optional bench-only routes from a module, on
// 127.0.0.1 and a free port. Talks to its parent over IPC: "listening" → parent; "memory" and "cpu"
// (process.cpuUsage) on request; "stop".
import { loadConfig } from '../../src/config.ts';
import { connect } from '../../src/db/connect.ts';
import { createContext } from '../../src/context.ts';
import { buildApp, fastifyOptions } from '../../src/app.ts';
import type { ChildServerOptions, ChildMessage, ParentMessage } from './server.ts';

const options = JSON.parse(process.env.REPUTE_BENCH_SERVER ?? '{}') as ChildServerOptions;
const send = (message: ChildMessage) => process.send!(message);

const config = loadConfig({ ...options.env, DATABASE_URL: options.databaseUrl });
const database = connect(config.databaseUrl, options.schema ? { schema: options.schema } : {});
const ctx = createContext(config, database);
const app = await buildApp(ctx, fastifyOptions('silent'));
if (options.routesModule) {
  const module = (await import(options.routesModule)) as { registerBenchRoutes: (app: unknown, ctx: unknown, params: unknown) => Promise<void> | void };
  await module.registerBenchRoutes(app, { ...ctx, log: app.log }, options.params);
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });

const stop = async () => {
  await app.close();
  await ctx.rateLimits.close();
  await database.destroy();
  process.exit(0);
};

process.on('message', (message: ParentMessage) => {
  if (message.type === 'memory') {
    const m = process.memoryUsage();
    send({ type: 'memory', rss: m.rss, heapUsed: m.heapUsed, external: m.external });
  } else if (message.type === 'cpu') {
    const c = process.cpuUsage();
    send({ type: 'cpu', micros: c.user + c.system });
  } else if (message.type === 'stop') {
    void stop();
  }
});
process.on('disconnect', () => void stop());
send({ type: 'listening', url });
