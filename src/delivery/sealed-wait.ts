// Endpoints whose signing secret this worker cannot open: REPUTE_SECRET_KEY is not the key that
// sealed it (a key changed by mistake, or a restored database with a new key). Their deliveries are
// not attempts: nothing can be signed, so nothing is sent and no attempt of the retry schedule is
// spent. They go back to the queue, due again after WAIT_MS, and the endpoint is left out of claims
// until then, so a large backlog is not walked over and over. The operator is told once per wait,
// per endpoint. Setting the original key (and restarting) or giving the endpoint a new signing
// secret lets them go out.
import type { Log } from '../lib/log.ts';

/** How long an endpoint's deliveries wait before this worker looks at its secret again. */
export const WAIT_MS = 60_000;

export interface SealedWait {
  /** Endpoints to leave out of claims at `now` (empty in the normal case). */
  excluded(now: number): string[];
  /** Holds the endpoint back from `now`; answers when its deliveries are due again. */
  hold(endpointId: string, now: number): number;
}

export function sealedWait(log: Log, waitMs = WAIT_MS): SealedWait {
  const until = new Map<string, number>();
  return {
    excluded(now) {
      if (until.size === 0) return [];
      for (const [id, at] of until) if (at <= now) until.delete(id);
      return [...until.keys()];
    },
    hold(endpointId, now) {
      const at = until.get(endpointId);
      if (at !== undefined && at > now) return at;
      const due = now + waitMs;
      until.set(endpointId, due);
      log.error({ endpoint: endpointId, setting: 'REPUTE_SECRET_KEY', retryInS: waitMs / 1000 },
        `webhook endpoint ${endpointId}: its signing secret cannot be opened with this REPUTE_SECRET_KEY (another key sealed it); its deliveries wait, ` +
        'no attempt is spent. Set the key the database was written with, or give the endpoint a new signing secret (Settings → Webhooks, or POST /api/v4/webhooks/{id}/secret/rotate)');
      return due;
    },
  };
}
