// Bearer-key authentication of the public routes: the key's principal (src/access/) onto the request,
// 401 for a bad key (429 for an address past its failed-authentication limit), 403 for a missing
// scope or plan feature.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { looksLikeKey } from '../access/api-key.ts';
import type { Principal } from '../access/principal.ts';
import type { PrincipalCache } from '../access/principal-cache.ts';
import type { Feature, Scope } from '../access/scopes.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { bearerToken } from './bearer.ts';
import { AppError, domainError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** What the hook needs: the principal cache, and the failed-authentication throttle (null: none). */
export interface KeyAuth {
  principals: PrincipalCache;
  keyFailures: AuthThrottle | null;
}

/**
 * onRequest hook for a public route: any valid key, plus the scope and plan feature when named.
 * Callback-style: a key already in the cache (nearly every request) passes without a promise or a
 * microtask turn; only a key to look up waits.
 */
export function requireKey(auth: KeyAuth, scope: Scope | null, feature: Feature | null): onRequestHookHandler {
  const cache = auth.principals;
  const admit = (request: FastifyRequest, principal: Principal): void => {
    if (scope !== null && !principal.scopes.includes(scope)) throw domainError('forbidden_scope', `API key lacks the ${scope} scope`);
    if (feature !== null && !principal.features.has(feature)) throw domainError('feature_not_in_plan', `the account's plan does not include ${feature}`);
    request.principal = principal;
  };
  const lookUp = async (request: FastifyRequest, key: string): Promise<void> => {
    auth.keyFailures?.check(request, key);
    const principal = looksLikeKey(key) ? await cache.resolve(key) : null;
    if (principal === null) {
      await auth.keyFailures?.failed(request);
      throw new AppError(401, 'API key is unknown or revoked');
    }
    // Every key in use is looked up again whenever its cache entry has lapsed: this keeps it vouched for.
    auth.keyFailures?.succeeded(key);
    admit(request, principal);
  };
  return (request, _reply, done) => {
    const key = bearerToken(request.headers.authorization);
    if (key === null) throw new AppError(401, 'Authorization header must be "Bearer <API key>"');
    // A key known valid passes even from a refused address (one client behind a shared address
    // must not lock out the others), and so does one that authenticated lately (AuthThrottle's
    // vouched); any other key from there is refused before it is looked up.
    const known = cache.peek(key);
    if (known === undefined) {
      lookUp(request, key).then(() => done(), done);
      return;
    }
    admit(request, known);
    done();
  };
}
