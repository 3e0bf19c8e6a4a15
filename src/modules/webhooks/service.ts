// Webhook rules: account-wide endpoint management (the key's node binding does not matter), the
// once-only signing secret (sealed at rest; its rotation is in secrets.ts), the test ping, delivery lists, the
// public one-attempt re-send and the operator's retry.
import type { Kysely } from 'kysely';
import { inTransaction, wakeAfterCommit } from '../../db/transaction.ts';
import type { DB, WebhookDeliveryRow } from '../../db/schema.ts';
import type { Principal } from '../../access/principal.ts';
import { appendEvent } from '../../events/outbox.ts';
import { newSecret } from '../../delivery/signer.ts';
import { conflict, invalid, notFound, unauthenticated } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { bit } from '../../db/columns.ts';
import { seal } from '../../lib/secret-box.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import * as repo from './repository.ts';
import type { DeliveryDetail, WebhookDelivery, WebhookEndpoint, WebhookEndpointInput, WebhookEndpointPatch } from './schemas.ts';

export interface WebhookSettings {
  /** REPUTE_SECRET_KEY: seals signing secrets. */
  secretKey: Buffer;
  /** WEBHOOK_ENDPOINT_LIMIT: the limit of accounts that have none of their own. */
  endpointLimit: number;
}

export function toEndpoint(row: repo.EndpointPublicRow, now = nowIso()): WebhookEndpoint {
  const until = row.previous_secret_until;
  return {
    id: row.id, name: row.name, url: row.url, events: JSON.parse(row.events) as string[],
    is_active: row.is_active !== 0, disabled_reason: row.is_active !== 0 ? null : row.disabled_reason,
    previous_secret_expires_at: until !== null && until > now ? until : null, created_at: row.created_at, updated_at: row.updated_at,
  };
}

function toDelivery(row: WebhookDeliveryRow & { last_error?: string | null }): WebhookDelivery {
  return {
    id: row.id, event_type: row.event_type, status: row.status as WebhookDelivery['status'], attempt_count: row.attempt_count,
    last_status_code: row.last_status_code, last_attempt_at: row.last_attempt_at, last_error: row.last_error ?? null, created_at: row.created_at,
  };
}

function checkUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw invalid('body.url must be an absolute http or https URL');
  }
  return url;
}

const uniqueEvents = (events: readonly string[]) => JSON.stringify([...new Set(events)]);

/** The principal's endpoint, or 404 (unknown, malformed id or another account's). */
export async function ownEndpoint(db: Kysely<DB>, principal: Principal, id: string): Promise<repo.EndpointPublicRow> {
  const row = await lookup(id, (uuid) => repo.findEndpoint(db, uuid));
  if (!row || row.account_id !== principal.accountId) throw notFound('webhook endpoint');
  return row;
}

export async function listEndpoints(db: Kysely<DB>, principal: Principal): Promise<{ data: WebhookEndpoint[] }> {
  return { data: (await repo.listEndpoints(db, principal.accountId)).map((row) => toEndpoint(row)) };
}

/** Creates an active endpoint; the secret is in this answer and nowhere else, ever. */
export async function createEndpoint(db: Kysely<DB>, settings: WebhookSettings, principal: Principal, input: WebhookEndpointInput): Promise<{ secret: string; endpoint: WebhookEndpoint }> {
  const url = checkUrl(input.url);
  return inTransaction(db, async (trx) => {
    const account = await repo.lockAccountLimit(trx, principal.accountId);
    if (!account) throw unauthenticated('API key is unknown or revoked');
    const limit = account.webhook_endpoint_limit ?? settings.endpointLimit;
    if (await repo.countEndpoints(trx, principal.accountId) >= limit) {
      throw conflict(`the account's limit of ${limit} webhook endpoints is reached; delete one first`, 'endpoint_limit_reached');
    }
    const now = nowIso();
    const id = newId();
    const secret = newSecret();
    const row = {
      id, account_id: principal.accountId, name: input.name, url, events: uniqueEvents(input.events),
      is_active: 1, secret_enc: seal(settings.secretKey, secret, id), created_at: now, updated_at: now,
    };
    await repo.insertEndpoint(trx, row);
    return { secret, endpoint: toEndpoint({ ...row, disabled_reason: null, previous_secret_until: null }) };
  });
}

export async function getEndpoint(db: Kysely<DB>, principal: Principal, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await ownEndpoint(db, principal, id));
}

/**
 * Changes an endpoint; one that goes from paused to active wakes the worker: its waiting deliveries
 * are due. Setting is_active (either way) clears the disabled reason and the failure streak, so a
 * re-enabled endpoint gets the full auto-disable period again.
 */
export async function updateEndpoint(db: Kysely<DB>, principal: Principal, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint> {
  const row = await ownEndpoint(db, principal, id);
  const changes = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.url !== undefined ? { url: checkUrl(patch.url) } : {}),
    ...(patch.events !== undefined ? { events: uniqueEvents(patch.events) } : {}),
    ...(patch.is_active !== undefined ? { is_active: bit(patch.is_active), disabled_reason: null, failing_since: null } : {}),
    updated_at: nowIso(),
  };
  await inTransaction(db, async (trx) => {
    await repo.updateEndpoint(trx, id, changes);
    if (row.is_active === 0 && changes.is_active === 1) wakeAfterCommit(trx);
  });
  return toEndpoint({ ...row, ...changes });
}

export async function deleteEndpoint(db: Kysely<DB>, principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
  await ownEndpoint(db, principal, id);
  await repo.deleteEndpoint(db, id);
  return { id, deleted: true };
}

export async function listDeliveries(db: Kysely<DB>, principal: Principal, id: string): Promise<{ data: WebhookDelivery[] }> {
  await ownEndpoint(db, principal, id);
  return { data: (await repo.listDeliveries(db, id)).map(toDelivery) };
}

/**
 * Re-sends a delivered or failed delivery of this endpoint: one attempt, due at once, whose outcome
 * is final and does not count toward auto-disable. 409 while it is pending (queued or in flight).
 */
/** A delivery of one of the principal's endpoints, or 404 (an unknown id, or one of another endpoint). */
export async function endpointDelivery(db: Kysely<DB>, principal: Principal, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRow> {
  await ownEndpoint(db, principal, endpointId);
  const row = await lookup(deliveryId, (uuid) => repo.findDelivery(db, uuid));
  if (!row || row.endpoint_id !== endpointId) throw notFound('delivery');
  return row;
}

export async function resendDelivery(db: Kysely<DB>, principal: Principal, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const row = await endpointDelivery(db, principal, endpointId, deliveryId);
  const now = nowIso();
  const requeued = await inTransaction(db, async (trx) => {
    const done = await repo.requeueOnce(trx, deliveryId, now);
    if (done) wakeAfterCommit(trx);
    return done;
  });
  if (!requeued) throw conflict('the delivery is pending (queued or being attempted); a re-send is possible once it is delivered or failed', 'delivery_pending');
  return toDelivery((await repo.findListedDelivery(db, deliveryId)) ?? { ...row, status: 'pending' });
}

/** The latest ping of an endpoint the caller has checked is its own, if it has one (a test asked for past the endpoint's window: send-window.ts). */
export async function latestPing(db: Kysely<DB>, endpointId: string): Promise<WebhookDelivery | null> {
  const row = await repo.latestPing(db, endpointId);
  return row ? toDelivery(row) : null;
}

/** Queues a signed ping to this endpoint only, whatever it subscribes to (a paused one gets it on resume). */
export async function queuePing(db: Kysely<DB>, principal: Principal, id: string): Promise<WebhookDelivery> {
  return inTransaction(db, async (trx) => {
    const endpoint = await ownEndpoint(trx, principal, id);
    const event = await appendEvent(trx, {
      accountId: principal.accountId, type: 'ping', endpointId: id,
      data: { endpoint_id: id, message: `Test delivery to "${endpoint.name}"` },
    });
    // No delivery when the endpoint was deleted since it was read (PostgreSQL, a concurrent DELETE
    // committed in between): it is gone, as its answer says, and the ping's event goes with this rollback.
    const deliveryId = event.deliveryIds[0];
    const delivery = deliveryId === undefined ? undefined : await repo.findDelivery(trx, deliveryId);
    if (!delivery) throw notFound('webhook endpoint');
    return toDelivery(delivery);
  });
}

// --- operator ---------------------------------------------------------------------------------

/** A delivery by id, or not found. */
async function requireDelivery(db: Kysely<DB>, id: string): Promise<WebhookDeliveryRow> {
  const row = await lookup(id, (uuid) => repo.findDelivery(db, uuid));
  if (!row) throw notFound('delivery');
  return row;
}

export async function deliveryDetail(db: Kysely<DB>, id: string): Promise<DeliveryDetail> {
  const row = await requireDelivery(db, id);
  const attempts = await repo.listAttempts(db, id);
  return {
    id: row.id, account_id: row.account_id, endpoint_id: row.endpoint_id, event_id: row.event_id, event_type: row.event_type,
    status: row.status, attempt_count: row.attempt_count, last_status_code: row.last_status_code,
    last_attempt_at: row.last_attempt_at, next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at, attempts,
  };
}

export async function accountDeliveries(db: Kysely<DB>, accountId: string, status: string | undefined): Promise<{ data: Array<WebhookDelivery & { endpoint_id: string }> }> {
  await requireAccount(db, accountId);
  const rows = await repo.listAccountDeliveries(db, accountId, status);
  return { data: rows.map((row) => ({ ...toDelivery(row), endpoint_id: row.endpoint_id })) };
}

/** One more attempt of a failed delivery (recorded like the others); 409 unless it is failed. */
export async function retryDelivery(db: Kysely<DB>, id: string): Promise<DeliveryDetail> {
  const row = await requireDelivery(db, id);
  const requeued = await inTransaction(db, async (trx) => {
    const done = await repo.requeueFailed(trx, id, nowIso());
    if (done) wakeAfterCommit(trx);
    return done;
  });
  if (!requeued) throw conflict(`only a failed delivery can be retried; this one is ${row.status}`);
  return deliveryDetail(db, id);
}
