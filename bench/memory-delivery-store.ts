// A delivery store with no database behind it, for bench/webhooks.ts --without-database only: it
// hands one endpoint's n deliveries to the worker in the sizes the worker asks for and forgets the
// results. The worker's own work (claim bookkeeping, signing, sending, the attempt record) is then
// all that runs, so its rate against the plain POST loop splits the worker's gap into the worker's
// own code and the database's claims and writes. Never used outside the bench: nothing is leased,
// kept or recorded.
import type { ClaimedDelivery, DeliveryStore } from '../src/delivery/store.ts';

/** What every handed-out delivery shares: the endpoint's target and sealed secret, and the body. */
export type DeliveryTemplate = Pick<ClaimedDelivery, 'endpointId' | 'eventType' | 'payload' | 'url' | 'secretEnc'>;

/** A turn of the event loop, as a database round trip would at least cost. */
const aTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function memoryDeliveryStore(template: DeliveryTemplate, n: number): DeliveryStore {
  let left = n;
  let handedOut = 0;
  // Ids from a counter, not UUIDs: the database's rows come with theirs, so making them is no part of the worker's work.
  const nextId = () => `m-${++handedOut}`;
  return {
    async claim(r) {
      await aTurn();
      if (r.excluded.includes(template.endpointId)) return [];
      const k = Math.max(0, Math.min(left, r.limit, r.room.get(template.endpointId) ?? r.perEndpoint));
      left -= k;
      const leaseUntil = Date.parse(r.leaseUntil);
      // Every field written out: built as {...template, …} in Array.from's mapping function, each
      // delivery cost about 11 µs here and slowed every later read of it, all charged to the worker.
      const claimed: ClaimedDelivery[] = [];
      for (let i = 0; i < k; i++) {
        claimed.push({
          id: nextId(), endpointId: template.endpointId, eventId: nextId(), eventType: template.eventType, attemptCount: 0,
          payload: template.payload, url: template.url, secretEnc: template.secretEnc, previousSecretEnc: null,
          previousSecretUntil: null, manual: false, countsForHealth: true, owner: r.owner, leaseUntil,
        });
      }
      return claimed;
    },
    async record() {
      await aTurn();
      return [];
    },
    async release(deliveries) {
      await aTurn();
      left += deliveries.length;
    },
  };
}
