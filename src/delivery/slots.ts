// The worker's slot arithmetic, pure: how many deliveries a claim may take in all and per endpoint.
// Claims run up to AHEAD times an endpoint's in-flight allowance ahead of the sending (in flight plus
// waiting to start), so a free slot never waits on the database; a slow endpoint, only as far ahead
// as it can start within its leases.

/**
 * Claims run up to this many times an endpoint's in-flight allowance ahead (in flight plus waiting).
 * Each claim is one round trip and one UPDATE whatever its size: at 12 a busy endpoint's claims
 * took about 70 deliveries each instead of 35 at 6, and at 24 about 125. At 24 a worker on
 * PostgreSQL made half as many claims and its slots ran dry a fifth as often as at 12, and
 * delivered 0.49-0.53 x the plain POST loop instead of 0.45-0.48 (bench/webhooks.ts --dialect
 * postgres, alternating runs); 48 gained no more.
 */
export const AHEAD = 24;

/**
 * How many waves of attempts ahead an endpoint is claimed, from how long its attempts take: a
 * claimed delivery must start within about one time-out of its claim (the worker gives back those
 * whose lease runs shorter), and an endpoint whose attempts take attemptMs gets through
 * timeoutMs / attemptMs waves in that time. A fast endpoint is claimed AHEAD waves ahead; a slow
 * one no further than it can start, so its leases are not taken only to be given back.
 */
export function aheadFor(attemptMs: number, timeoutMs: number): number {
  return Math.max(1, Math.min(AHEAD, Math.floor(timeoutMs / Math.max(attemptMs, 1))));
}

/** How many more deliveries the worker may hold (claimed, not yet recorded); ≤ 0: claim nothing now. */
export const claimLimit = (concurrency: number, held: number): number => AHEAD * concurrency - held;

/** At most this many per endpoint that is not limited or in hand: AHEAD times the in-flight cap. */
export const claimPerEndpoint = (perEndpoint: number): number => AHEAD * perEndpoint;

export interface ClaimRoom {
  /** Endpoints that may take fewer than the default AHEAD × perEndpoint: id → room > 0. */
  room: Map<string, number>;
  /** Endpoints with no room at all this time. */
  excluded: string[];
}

/**
 * Room per endpoint: its waves ahead (`paced`: endpoints claimed fewer than AHEAD waves ahead, see
 * aheadFor) times its allowance in flight (the breaker's, for endpoints it limits; perEndpoint
 * otherwise), less what the worker already has in hand for it (in flight and waiting).
 */
export function claimRoom(perEndpoint: number, limited: ReadonlyMap<string, number>, inHand: ReadonlyMap<string, number>,
  paced: ReadonlyMap<string, number> = new Map()): ClaimRoom {
  const room = new Map<string, number>();
  const ahead = (id: string) => paced.get(id) ?? AHEAD;
  for (const [id, n] of limited) room.set(id, ahead(id) * n);
  for (const [id, waves] of paced) if (!room.has(id)) room.set(id, waves * perEndpoint);
  for (const [id, n] of inHand) room.set(id, (room.get(id) ?? claimPerEndpoint(perEndpoint)) - n);
  const excluded: string[] = [];
  for (const [id, n] of room) if (n <= 0) excluded.push(id);
  for (const id of excluded) room.delete(id);
  return { room, excluded };
}

/**
 * Claim again once an endpoint's waiting line is half gone (not after every attempt: fewer, fuller
 * claims, started early enough that the line does not run dry during the round trip); an endpoint
 * claimed one wave ahead, once its line is empty.
 */
export const lineRunningLow = (waiting: number, perEndpoint: number, waves = AHEAD): boolean =>
  waiting < Math.max(1, ((waves - 1) * perEndpoint) / 2);

/** Claims stopped (or shrank) for want of room in hand, so a write of results should wake them. */
export const claimsWereFull = (concurrency: number, perEndpoint: number, held: number): boolean => held > AHEAD * concurrency - 2 * perEndpoint;
