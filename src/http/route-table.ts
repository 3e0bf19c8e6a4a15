// The app's registered routes (method, full URL, schema), collected as they are added: the one
// place that knows which methods a path answers (405 and Allow) and what tests enumerate.
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';

export interface RouteEntry {
  method: string;
  /** Full URL pattern, prefix included, e.g. /api/v4/reviews/:id. */
  url: string;
  schema: FastifySchema | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: readonly RouteEntry[];
  }
}

/** Call before any route is registered: onRoute hooks only see what comes after them. */
export function collectRoutes(app: FastifyInstance, onRoute: (route: RouteOptions) => void = () => {}): RouteEntry[] {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    onRoute(route);
    for (const method of [route.method].flat()) table.push({ method, url: route.url, schema: route.schema });
  });
  return table;
}

const patterns = new Map<string, RegExp>();

function patternOf(url: string): RegExp {
  const known = patterns.get(url);
  if (known) return known;
  const parts = url.replace(/\/+$/, '').split('/').map((part) => {
    if (part === '*') return '.*';
    if (part.startsWith(':')) return '[^/]+';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const pattern = new RegExp(`^${parts.join('/')}/?$`);
  patterns.set(url, pattern);
  return pattern;
}

/** The methods that some route answers on this concrete path (empty when the path is unknown). */
export function allowedMethods(table: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of table) if (patternOf(route.url).test(path)) methods.add(route.method);
  return [...methods].sort();
}
