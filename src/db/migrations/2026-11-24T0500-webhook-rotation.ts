// Webhook secret rotation, auto-disable and the public re-send: the previous signing secret (sealed
// like the current one) and until when it still signs; since when an endpoint has failed without a
// success in between, and why Repute disabled it; a delivery's one-attempt re-send flag.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_enc', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_until', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('failing_since', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('disabled_reason', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('manual_retry', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('manual_retry').execute();
  for (const column of ['disabled_reason', 'failing_since', 'previous_secret_until', 'previous_secret_enc']) {
    await db.schema.alterTable('webhook_endpoints').dropColumn(column).execute();
  }
}
