// Bearer-key authentication of the public routes: the key's principal (src/access/) onto the request,
// 401 for a bad key, 403 for a missing scope or plan feature.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { looksLikeKey } from '../access/api-key.ts';
import type { Principal } from '../access/principal.ts';
import type { PrincipalCache } from '../access/principal-cache.ts';
import type { Feature, Scope } from '../access/scopes.ts';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** onRequest hook for a public route: any valid key, plus the scope and plan feature when named. */
export function requireKey(cache: PrincipalCache, scope: Scope | null, feature: Feature | null): onRequestHookHandler {
  return async (request) => {
    const key = bearer(request);
    if (key === null) throw new AppError(401, 'Authorization header must be "Bearer <API key>"');
    const principal = looksLikeKey(key) ? await cache.resolve(key) : null;
    if (principal === null) throw new AppError(401, 'API key is unknown or revoked');
    if (scope !== null && !principal.scopes.includes(scope)) throw new AppError(403, `API key lacks the ${scope} scope`);
    if (feature !== null && !principal.features.has(feature)) throw new AppError(403, `the account's plan does not include ${feature}`);
    request.principal = principal;
  };
}
