// A generated recommendation keeps the figures it was drawn from (src/modules/insights/recommendation-facts.ts)
// beside its English text, so the dashboard can say it in the page's language. Null for an
// operator's own recommendations and for generated ones until the next pass rewrites them.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recommendations').addColumn('facts', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recommendations').dropColumn('facts').execute();
}
