// Webhook delivery leases: who holds a claimed delivery (so a late result of a lost lease is not
// written over a newer one), and an index that finds one endpoint's due deliveries without
// scanning the others' (a failing endpoint's backlog must not slow the claim of a healthy one).
// Frozen: never edit, add a new migration instead.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const str = pg ? sql`text collate "C"` : sql`text`;
  await db.schema.alterTable('webhook_deliveries').addColumn('lease_owner', str).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_due')
    .on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_due').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('lease_owner').execute();
}
