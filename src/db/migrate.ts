// Runs the migrations under Kysely's migration lock (safe when several instances start at once).
import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import * as initial from './migrations/2026-11-22T1000-initial.ts';
import * as webhookLeases from './migrations/2026-11-23T1200-webhook-leases.ts';
import * as insightSurveyIndexes from './migrations/2026-11-23T1300-insight-survey-indexes.ts';

// Listed explicitly (not read from the folder) so they work the same under tsx and in a bundle.
const migrations: Record<string, Migration> = {
  '2026-11-22T1000-initial': initial,
  '2026-11-23T1200-webhook-leases': webhookLeases,
  '2026-11-23T1300-insight-survey-indexes': insightSurveyIndexes,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // PostgreSQL: pin the bookkeeping tables to the working schema; unpinned, Kysely takes a
  // kysely_migration table in ANY schema (another test's or benchmark's) as its own and fails.
  const schema = db.getExecutor().adapter instanceof PostgresAdapter
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
