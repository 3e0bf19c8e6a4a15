// SQL of webhook endpoints and their deliveries (the worker's claims live in src/delivery/).
import type { Insertable, Kysely } from 'kysely';
import { isPostgres } from '../../db/adapter.ts';
import type { DB, WebhookDeliveryRow, WebhookEndpointRow, WebhookEndpointTable } from '../../db/schema.ts';
import { MANUAL_RETRY } from '../../delivery/manual-retry.ts';

const DELIVERY_LIST_LIMIT = 100;

const ENDPOINT_COLUMNS = ['id', 'account_id', 'name', 'url', 'events', 'is_active', 'disabled_reason', 'previous_secret_until', 'created_at', 'updated_at'] as const;
export type EndpointPublicRow = Pick<WebhookEndpointRow, (typeof ENDPOINT_COLUMNS)[number]>;

export async function listEndpoints(db: Kysely<DB>, accountId: string): Promise<EndpointPublicRow[]> {
  return db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

/** Never the secret: only the worker reads secret_enc. */
export async function findEndpoint(db: Kysely<DB>, id: string): Promise<EndpointPublicRow | undefined> {
  return db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function countEndpoints(db: Kysely<DB>, accountId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The account's endpoint limit; on PostgreSQL the account row is locked so concurrent creates count in turn. */
export async function lockAccountLimit(db: Kysely<DB>, accountId: string): Promise<{ webhook_endpoint_limit: number | null } | undefined> {
  const query = db.selectFrom('accounts').select('webhook_endpoint_limit').where('id', '=', accountId);
  const pg = isPostgres(db);
  return (pg ? query.forUpdate() : query).executeTakeFirst();
}

export async function insertEndpoint(db: Kysely<DB>, row: Insertable<WebhookEndpointTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function updateEndpoint(db: Kysely<DB>, id: string, changes: Partial<Pick<WebhookEndpointRow, 'name' | 'url' | 'events' | 'is_active' | 'disabled_reason' | 'failing_since' | 'updated_at'>>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();
}

/** Deletes the endpoint; its deliveries go with it (ON DELETE CASCADE), and their attempts (the trigger delivery_attempts_deleted). */
export async function deleteEndpoint(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

export type DeliveryListRow = WebhookDeliveryRow & { last_error: string | null };

/** Deliveries with the reason of their last failed attempt (one seek each on webhook_attempts_delivery, newest first). */
const deliveriesWithLastError = (db: Kysely<DB>) => db.selectFrom('webhook_deliveries as d').selectAll('d')
  .select((eb) => eb.selectFrom('webhook_attempts as a').select('a.error').whereRef('a.delivery_id', '=', 'd.id')
    .where('a.error', 'is not', null).orderBy('a.attempted_at', 'desc').limit(1).as('last_error'));

/** The endpoint's most recent deliveries, newest first. */
export async function listDeliveries(db: Kysely<DB>, endpointId: string, limit = DELIVERY_LIST_LIMIT): Promise<DeliveryListRow[]> {
  return deliveriesWithLastError(db).where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** The endpoint's latest ping (test delivery) with the reason of its last failed attempt, if any. */
export async function latestPing(db: Kysely<DB>, endpointId: string): Promise<DeliveryListRow | undefined> {
  return deliveriesWithLastError(db).where('d.endpoint_id', '=', endpointId).where('d.event_type', '=', 'ping')
    .orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(1).executeTakeFirst();
}

/** One delivery with the reason of its last failed attempt. */
export async function findListedDelivery(db: Kysely<DB>, id: string): Promise<DeliveryListRow | undefined> {
  return deliveriesWithLastError(db).where('d.id', '=', id).executeTakeFirst();
}

/** The sealed current secret and the end of the previous one's grace period; for rotation only. */
export async function findSecret(db: Kysely<DB>, id: string): Promise<Pick<WebhookEndpointRow, 'secret_enc' | 'previous_secret_until'> | undefined> {
  const query = db.selectFrom('webhook_endpoints').select(['secret_enc', 'previous_secret_until']).where('id', '=', id);
  return (isPostgres(db) ? query.forUpdate() : query).executeTakeFirst();
}

export async function setSecrets(db: Kysely<DB>, id: string, secrets: Pick<WebhookEndpointRow, 'secret_enc' | 'previous_secret_enc' | 'previous_secret_until' | 'updated_at'>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(secrets).where('id', '=', id).execute();
}

/** A delivered or failed delivery becomes due at once for one re-send; false when it is pending (or gone). */
export async function requeueOnce(db: Kysely<DB>, id: string, now: string): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, lease_until: null, lease_owner: null, manual_retry: MANUAL_RETRY.api })
    .where('id', '=', id).where('status', '!=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listAccountDeliveries(db: Kysely<DB>, accountId: string, status: string | undefined, limit = DELIVERY_LIST_LIMIT): Promise<DeliveryListRow[]> {
  let query = deliveriesWithLastError(db).where('d.account_id', '=', accountId);
  if (status !== undefined) query = query.where('d.status', '=', status);
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

export async function findDelivery(db: Kysely<DB>, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAttempts(db: Kysely<DB>, deliveryId: string) {
  return db.selectFrom('webhook_attempts').select(['id', 'attempted_at', 'status_code', 'duration_ms', 'error', 'response_body'])
    .where('delivery_id', '=', deliveryId).orderBy('attempted_at').orderBy('id').execute();
}

/** A failed delivery becomes due for one more attempt (not the rest of a schedule); returns false when it is not failed. */
export async function requeueFailed(db: Kysely<DB>, id: string, now: string): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, lease_until: null, lease_owner: null, manual_retry: MANUAL_RETRY.operator })
    .where('id', '=', id).where('status', '=', 'failed').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
