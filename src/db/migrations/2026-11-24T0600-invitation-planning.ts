// The invitation planner's read (src/modules/invitations/planner.ts): an account's checked-out
// stays changed since a moment, in (updated_at, id) order, page by page, as one index range each.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('reservations_account_status_updated').on('reservations').columns(['account_id', 'status', 'updated_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('reservations_account_status_updated').execute();
}
