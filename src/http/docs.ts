// The API reference page (GET /api/v4/docs): swagger-ui served from the package (no CDN, works
// offline), titled as Repute's own, without the framework's logo or favicon or the top bar (whose
// box would load any URL typed into it), and without the online validator badge.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/>'
  + '<text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">R</text></svg>';

const CSS = '.swagger-ui .topbar { display: none; }\n';

/** routePrefix within the API's context; indexPrefix: that context's own prefix, for the page's asset links. */
export function docsOptions(routePrefix: string, indexPrefix: string): FastifySwaggerUiOptions {
  return {
    routePrefix,
    indexPrefix,
    // Repute's mark in place of the framework's (the top bar that shows it is hidden anyway).
    logo: { type: 'image/svg+xml', content: Buffer.from(FAVICON) },
    uiConfig: { deepLinking: true },
    validatorUrl: false,
    theme: {
      title: 'Repute API reference',
      css: [{ filename: 'repute.css', content: CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
    },
  };
}
