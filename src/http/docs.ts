// The API reference page (GET /api/v4/docs): swagger-ui served from the package (no CDN, works
// offline), titled as Repute's own, without the framework's logo or favicon or the top bar (whose
// box would load any URL typed into it), and without the online validator badge. Its responses carry
// a Content-Security-Policy of their own: every script is one of the package's files ('self'), the
// document and "Try it out" requests go to this server only, and no other site may frame the page.
// Inline styles stay allowed: swagger-ui's React components set style attributes. The other headers
// every dashboard page carries come too (no referrer leaves, no framing in older browsers, no sniffing).
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/>'
  + '<text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">R</text></svg>';

const CSS = '.swagger-ui .topbar { display: none; }\n';

export const DOCS_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "connect-src 'self'", "font-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/** routePrefix within the API's context; indexPrefix: that context's own prefix, for the page's asset links. */
export function docsOptions(routePrefix: string, indexPrefix: string): FastifySwaggerUiOptions {
  return {
    routePrefix,
    indexPrefix,
    // Repute's mark in place of the framework's (the top bar that shows it is hidden anyway).
    logo: { type: 'image/svg+xml', content: Buffer.from(FAVICON) },
    uiConfig: { deepLinking: true },
    validatorUrl: false,
    staticCSP: DOCS_CSP,
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff');
        done();
      },
    },
    theme: {
      title: 'Repute API reference',
      css: [{ filename: 'repute.css', content: CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
    },
  };
}
