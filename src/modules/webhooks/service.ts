// Webhook rules: account-wide endpoint management (the key's node binding does not matter), the
// once-only signing secret (sealed at rest), the test ping, delivery lists and the operator's retry.
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

function toEndpoint(row: repo.EndpointPublicRow): WebhookEndpoint {
  return {
    id: row.id, name: row.name, url: row.url, events: JSON.parse(row.events) as string[],
    is_active: row.is_active !== 0, created_at: row.created_at, updated_at: row.updated_at,
  };
}

function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id, event_type: row.event_type, status: row.status as WebhookDelivery['status'], attempt_count: row.attempt_count,
    last_status_code: row.last_status_code, last_attempt_at: row.last_attempt_at, created_at: row.created_at,
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
  return { data: (await repo.listEndpoints(db, principal.accountId)).map(toEndpoint) };
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
    return { secret, endpoint: toEndpoint(row) };
  });
}

/** Changes an endpoint; one that goes from paused to active wakes the worker: its waiting deliveries are due. */
export async function updateEndpoint(db: Kysely<DB>, principal: Principal, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint> {
  const row = await ownEndpoint(db, principal, id);
  const changes = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.url !== undefined ? { url: checkUrl(patch.url) } : {}),
    ...(patch.events !== undefined ? { events: uniqueEvents(patch.events) } : {}),
    ...(patch.is_active !== undefined ? { is_active: bit(patch.is_active) } : {}),
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

/** Queues a signed ping to this endpoint only, whatever it subscribes to (a paused one gets it on resume). */
export async function queuePing(db: Kysely<DB>, principal: Principal, id: string): Promise<WebhookDelivery> {
  return inTransaction(db, async (trx) => {
    const endpoint = await ownEndpoint(trx, principal, id);
    const event = await appendEvent(trx, {
      accountId: principal.accountId, type: 'ping', endpointId: id,
      data: { endpoint_id: id, message: `Test delivery to "${endpoint.name}"` },
    });
    const delivery = await repo.findDelivery(trx, event.deliveryIds[0]!);
    return toDelivery(delivery!);
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
