// The guard of a plane that one configured bearer token opens (the admin API, the metrics): absent
// from the network when the token is not set, 401 for any other token, guessing throttled per address.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AuthThrottle } from './auth-throttle.ts';
import { bearerToken } from './bearer.ts';
import { AppError } from './errors.ts';

/** An onRequest hook that lets through only `Authorization: Bearer <token>`; `variable` names the setting. */
export function tokenGuard(token: string | null, variable: string, failures: AuthThrottle): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    // Without a configured token the plane does not exist on the network.
    if (token === null) throw new AppError(404, `no route ${request.method} ${request.url.split('?')[0]}`);
    const given = bearerToken(request.headers.authorization);
    // No token is no guess: answered 401 and counted nowhere (a client probing every route without one
    // must not lock its address out).
    if (given === null) throw new AppError(401, `Authorization header must be "Bearer <${variable}>"`);
    // A refused address is refused, the right token included (otherwise guessing would go on),
    // unless that token authenticated lately: an operator's tools beside a failing script still work.
    failures.check(request, given);
    if (!safeEqual(given, token)) {
      await failures.failed(request);
      throw new AppError(401, `the bearer token is not this server's ${variable}`);
    }
    failures.succeeded(given);
  };
}

/** Compares digests, so neither the content nor the length of the secret shows in the time taken. */
function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
