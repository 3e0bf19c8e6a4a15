// An identity for every record kind `repute import` writes besides reviews (which have theirs:
// account, platform, external_id): import_key, a hash of the line's external_id or content
// (src/import/identity.ts), unique, so re-running a file after a crash creates nothing twice.
// NULL for records made elsewhere (admin API, demo): NULLs never collide in a unique index.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

const TABLES = ['surveys', 'survey_responses', 'topics', 'mentions', 'recommendations'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.alterTable(table).addColumn('import_key', 'text').execute();
    await db.schema.createIndex(`${table}_import_key`).on(table).column('import_key').unique().execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [...TABLES].reverse()) {
    await db.schema.dropIndex(`${table}_import_key`).execute();
    await db.schema.alterTable(table).dropColumn('import_key').execute();
  }
}
