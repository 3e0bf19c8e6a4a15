// Bench-only routes for a child server (bench/support/server.ts, routesModule): records each
// request's server time (Fastify's reply.elapsedTime: from arrival to the response written) by URL,
// and GET /bench/server-times hands them over and starts afresh. Server-side, so the load
// generator's own work never counts.
import type { FastifyInstance } from 'fastify';

export function registerBenchRoutes(app: FastifyInstance): void {
  let times = new Map<string, number[]>();
  app.addHook('onResponse', (request, reply, done) => {
    if (!request.url.startsWith('/bench/')) {
      const list = times.get(request.url) ?? [];
      list.push(reply.elapsedTime);
      times.set(request.url, list);
    }
    done();
  });
  app.get('/bench/server-times', async () => {
    const taken = Object.fromEntries(times);
    times = new Map();
    return taken;
  });
}
