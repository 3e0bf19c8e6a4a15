// Builds the Fastify app: validation, errors, request ids, OpenAPI, docs, health, and every module's routes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import { Type } from 'typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sql } from 'kysely';
import type { Principal } from './access/principal.ts';
import type { AppContext } from './context.ts';
import type { Config } from './config.ts';
import { domainError, envelope, type FaultPages, registerErrorHandling } from './http/errors.ts';
import { clientErrorHandler, frameworkError } from './http/edge-errors.ts';
import { AuthThrottle } from './http/auth-throttle.ts';
import { tokenGuard } from './http/token-guard.ts';
import { requestLogger, requestSerializer } from './http/request-log.ts';
import { validatorCompiler } from './http/validation.ts';
import { parseJsonBody } from './http/json-body.ts';
import { ADMIN_PREFIX, API_PREFIX, documentOptions } from './openapi.ts';
import { docsOptions } from './http/docs.ts';
import { allowedMethods, collectRoutes } from './http/route-table.ts';
import { adminRoutes, publicRoutes } from './modules/registry.ts';
import { registerPages } from './web/plugin.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { isGuestLink } from './web/survey/routes.ts';

const DOCS_PREFIX = `${API_PREFIX}/docs`;
const MiB = 1024 * 1024;

/** An incoming X-Request-Id is kept when it is a sane token; otherwise a fresh one is made. */
const genReqId = (req: { headers: Record<string, string | string[] | undefined> }): string => {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
};

/** Server options; `stream` sends the JSON log lines somewhere other than stdout (tests read them). */
export function fastifyOptions(logLevel: string, stream?: DestinationStream): FastifyServerOptions {
  return {
    // Keys and the admin token travel in Authorization: never let a log line carry it.
    logger: logLevel === 'silent' ? false : {
      level: logLevel,
      redact: ['req.headers.authorization', 'headers.authorization'],
      serializers: { req: requestSerializer },
      ...(stream ? { stream } : {}),
    },
    ...(logLevel === 'silent' ? {} : { childLoggerFactory: requestLogger }),
    genReqId,
    bodyLimit: MiB,
    // No id is too long for the router: one longer than any real id then reaches its route, whose
    // key check answers 401 without a key (before, the router's 100-character cap answered 404
    // first), and whose look-up answers 404 with one. The request line stays under the 16 KiB cap.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
  };
}

/**
 * What the configuration decides about the server itself, whatever options the caller gave: the
 * trusted proxies, the time-outs, and answers in the error envelope for requests Node's parser refuses.
 */
function serverSettings(config: Config): FastifyServerOptions {
  return {
    trustProxy: config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    clientErrorHandler,
    // Shutdown's 503 is answered by the onRequest hook below, in the envelope, instead.
    return503OnClosing: false,
  };
}

export async function buildApp(ctx: Omit<AppContext, 'log'>, options: FastifyServerOptions = fastifyOptions(ctx.config.logLevel)): Promise<FastifyInstance> {
  // Filled once the pages are mounted (below): how faults no route handles are shown to a browser.
  const faultPages: FaultPages = { render: null };
  const app = Fastify({ ...options, ...serverSettings(ctx.config), frameworkErrors: (error, request, reply) => frameworkError(error, request, reply, faultPages) });
  // Headers get the same time as the whole request, and time-outs are checked every second
  // (Node's default, 30 s, would let a slow client hold its connection up to 30 s longer).
  app.server.headersTimeout = ctx.config.requestTimeoutMs;
  // (A creation option of http.Server that Node reads when the server starts listening.)
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(1000, ctx.config.requestTimeoutMs);
  const context: AppContext = { ...ctx, log: app.log };
  context.sessions.start(app.log);
  app.addHook('onClose', () => context.sessions.stop());
  // Declared up front, so every request object has the same shape whether a key hook sets it or not.
  app.decorateRequest('principal', null as unknown as Principal);
  const table = collectRoutes(app, strictQuery);
  app.setValidatorCompiler(validatorCompiler);
  // Every body is JSON: a text/plain one is refused with 415 rather than validated as a string.
  app.removeContentTypeParser('text/plain');
  // JSON bodies as src/http/json-body.ts reads them: prototype poisoning refused, faults in words.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseJsonBody(request, body as string);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, parsed);
  });
  registerErrorHandling(app, (path) =>
    // Without a token the operator plane does not exist, so its paths never answer 405.
    path.startsWith(ADMIN_PREFIX) && ctx.config.adminToken === null ? null : allowedMethods(table, path), faultPages);
  // Once shutdown starts, answers still in flight close their connection: a keep-alive socket left
  // open would hold the process up to the keep-alive time-out (72 s) after the last answer.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // These two run on every request: callback-style, so neither costs a promise and a microtask turn.
  app.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? domainError('shutting_down', 'this instance is shutting down: retry, another instance will answer', { 'Retry-After': '1' }) : undefined);
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    reply.header('x-request-id', request.id); // lower case: how Fastify keeps (and sends) every name
    // An answer given before the body has all arrived (a 401 for a bad key, say) ends the
    // connection too: otherwise it would wait for the rest of a body nobody will read.
    if (closing || request.raw.complete === false) reply.header('Connection', 'close');
    done();
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      // A database that does not answer within 2 s is as good as down for a readiness probe.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 2 s')), 2000);
      });
      await Promise.race([sql`select 1`.execute(ctx.db), late]).finally(() => clearTimeout(timer));
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not reachable');
      return reply.status(503).header('Retry-After', '2').send(envelope('database not reachable', 'database_unavailable'));
    }
  });

  await metricsRoutes(app, context);

  // Each plane has its own document, built from its own routes (src/openapi.ts). The reference page
  // loads the public one from ./json (swagger-ui's own route).
  await app.register(async (api) => {
    await api.register(swagger, documentOptions('public'));
    await api.register(swaggerUi, docsOptions('/docs', API_PREFIX));
    api.get('/openapi.json', { schema: { hide: true } }, async () => api.swagger());
    for (const routes of publicRoutes) routes(api, context);
  }, { prefix: API_PREFIX });

  const adminFailures = new AuthThrottle(ctx.rateLimits, 'admin', ctx.config.authFailureLimit, ctx.config.authFailureWindowS);
  await app.register(async (admin) => {
    admin.addHook('onRequest', tokenGuard(ctx.config.adminToken, 'REPUTE_ADMIN_TOKEN', adminFailures));
    await admin.register(swagger, documentOptions('admin'));
    // Behind the admin token like every route of the plane.
    admin.get('/openapi.json', { schema: { hide: true } }, async () => admin.swagger());
    for (const routes of adminRoutes) routes(admin, context);
  }, { prefix: ADMIN_PREFIX });

  faultPages.render = await registerPages(app, context);
  faultPages.alwaysPage = isGuestLink;

  return app;
}

const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A route of either API that declares no query string takes none: an unknown parameter (a typo
 * such as ?limt=10) answers 400 naming it instead of being silently ignored.
 */
function strictQuery(route: RouteOptions): void {
  const url = route.url ?? '';
  const inApi = (url.startsWith(API_PREFIX) && !url.startsWith(DOCS_PREFIX) && url !== `${API_PREFIX}/openapi.json`)
    || (url.startsWith(ADMIN_PREFIX) && url !== `${ADMIN_PREFIX}/openapi.json`);
  if (inApi && route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NoQuery };
}
