// The claim's one index: a partial index of the pending deliveries per endpoint, in due order. It
// replaces (status, next_attempt_at), which no query needs (claims go endpoint by endpoint, so a
// failing endpoint's backlog is never walked for a healthy one), and (endpoint_id, status,
// next_attempt_at), which also held every delivered and failed row. Each delivery changes state
// twice (claimed, then recorded); the fewer indexes that must take a new entry, the cheaper both.
// Frozen: never edit, add a new migration instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries').columns(['endpoint_id', 'next_attempt_at']).where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.dropIndex('webhook_deliveries_endpoint_due').execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_due')
    .on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at']).execute();
  await db.schema.dropIndex('webhook_deliveries_pending').execute();
}
