// The plumbing every server-rendered page shares (the survey pages guests answer, the dashboard):
// form bodies, security headers with a strict Content-Security-Policy, Eta templates that escape
// every output, static assets from the package itself, and faults answered as HTML pages.
// It is one encapsulated Fastify context: none of it reaches the JSON APIs, whose answers, parsers
// and headers stay as they are (a form body sent to /api/v4 is still refused with 415).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import escapeHtml from 'escape-html';
import { Eta } from 'eta';
import helmet from 'helmet';
import type { AppContext } from '../context.ts';
import { httpErrorOf, type AppError, type FaultPages } from '../http/errors.ts';
import type { DomainError } from '../lib/errors.ts';
import { errorPageData, renderError } from './error-page.ts';
import { ASSETS_DIR, VENDOR_DIRS, VIEWS_DIR } from './locations.ts';
import { type PageRoutes, pageRoutes } from './registry.ts';
import { guestLinkFault, isGuestLink } from './survey/routes.ts';

export const ASSETS_PREFIX = '/assets/';

declare module 'fastify' {
  interface FastifyInstance {
    /** The HTML of a template under src/web/views (e.g. 'dashboard/reviews.eta'), every <%= %> output escaped. */
    view(template: string, data: object): string;
  }
  interface FastifyReply {
    /** Sends the template's HTML (text/html unless a type was set). */
    view(template: string, data: object): FastifyReply;
  }
}

/**
 * Eta over src/web/views, with compiled templates and resolved template paths kept: Eta resolves the
 * path of every include and layout again at each render (a JSON key and path arithmetic, ~12 µs a
 * page in profiles), though the files never move while the server runs. Values are escaped by
 * escape-html (the same five characters and entities as Eta's own escaper): Eta's replaces through a
 * callback per character and cost 60 µs of the review inbox's page, escape-html half as much.
 */
function viewEngine(): Eta {
  const eta = new Eta({ views: VIEWS_DIR, cache: true, escapeFunction: (value: unknown) => escapeHtml(String(value)) });
  const resolve = eta.resolvePath!;
  const resolved = new Map<string, string>();
  eta.resolvePath = function (template, options) {
    const key = `${options?.filepath ?? ''}\n${template}`;
    let path = resolved.get(key);
    if (path === undefined) {
      path = resolve.call(this, template, options);
      resolved.set(key, path);
    }
    return path;
  };
  return eta;
}

/**
 * Answers a request no route took (404, or 405 with its Allow header set) as an HTML page, with the
 * pages' security headers: for a person's browser outside the JSON APIs (a mistyped dashboard address).
 */
type PageFault = NonNullable<FaultPages['render']>;

/** Whether the request is for a guest's page (a survey or unsubscribe link), whose reader has no dashboard. */
const onGuestPage = (request: FastifyRequest): boolean => isGuestLink(request.url.split('?')[0] ?? '/');

/** Mounts the pages; `routes` defaults to every feature's (src/web/registry.ts). Answers how to show a fault outside them. */

export async function registerPages(app: FastifyInstance, ctx: AppContext, routes: readonly PageRoutes[] = pageRoutes): Promise<PageFault> {
  let pageFault: PageFault | null = null;
  await app.register(async (web) => {
    const https = ctx.config.publicUrl.startsWith('https:');
    await web.register(formbody);
    // helmet itself, built once: @fastify/helmet rebuilds helmet's middleware (and re-parses the CSP)
    // on every request, 48 µs of a 1.5 ms page in profiles. The headers are the same.
    const securityHeaders = helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          // Over plain http (a demo, a LAN) upgrading requests would break every asset.
          ...(https ? { upgradeInsecureRequests: [] } : {}),
        },
      },
      frameguard: { action: 'deny' },
      // Survey and unsubscribe links carry their token in the path: never send it on.
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
    });
    web.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));
    // Eta renders directly (reply.view, web.view): @fastify/view re-configured the engine and copied
    // the page's data on every render, through three promise hops (~15 µs of a 0.6 ms page).
    const eta = viewEngine();
    web.decorate('view', (template: string, data: object) => eta.render(template, data));
    web.decorateReply('view', function (this: FastifyReply, template: string, data: object) {
      if (!this.hasHeader('content-type')) this.type('text/html; charset=utf-8');
      return this.send(eta.render(template, data));
    });
    await web.register(fastifyStatic, {
      root: [ASSETS_DIR, ...VENDOR_DIRS],
      prefix: ASSETS_PREFIX,
      preCompressed: true,
      maxAge: '1h',
      index: false,
      list: false,
    });

    web.setErrorHandler((thrown: FastifyError | AppError | DomainError, request, reply) => {
      const error = httpErrorOf(thrown, request);
      if (isLinkFault(request, error.status)) return linkFaultPage(request, reply);
      return renderError(reply.status(error.status).headers(error.headers), error.status, error.status >= 500 ? null : error.message,
        request.headers['accept-language'], onGuestPage(request));
    });

    for (const register of routes) await register(web, ctx);

    // A guest's link that leads nowhere is "not valid", in the guest's language, whatever failed (no route, a bad token).
    const isLinkFault = (request: FastifyRequest, status: number) => (status === 400 || status === 404) && onGuestPage(request);
    const linkFaultPage = (request: FastifyRequest, reply: FastifyReply) => {
      const page = guestLinkFault(request);
      return reply.status(404).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(eta.render(page.template, page.data));
    };

    pageFault = (request, reply, status, message) => {
      securityHeaders(request.raw, reply.raw, () => {});
      if (isLinkFault(request, status)) return linkFaultPage(request, reply);
      return reply.status(status).header('Cache-Control', 'no-store').type('text/html; charset=utf-8')
        // No page at this address: said in a reader's words (errorPageData's), not the router's ("no route GET /x").
        .send(eta.render('error.eta', errorPageData(status, status === 404 ? null : message, request.headers['accept-language'], onGuestPage(request))));
    };
  });
  return pageFault!;
}
