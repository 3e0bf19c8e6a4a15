// Runs the migrations under Kysely's migration lock (safe when several instances start at once).
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { isPostgres } from './adapter.ts';
import * as initial from './migrations/2026-11-22T1000-initial.ts';
import * as webhookLeases from './migrations/2026-11-23T1200-webhook-leases.ts';
import * as insightSurveyIndexes from './migrations/2026-11-23T1300-insight-survey-indexes.ts';
import * as pendingDeliveriesIndex from './migrations/2026-11-23T1400-pending-deliveries-index.ts';
import * as importKeys from './migrations/2026-11-23T2030-import-keys.ts';
import * as extraction from './migrations/2026-11-24T0100-extraction.ts';
import * as surveyInvitations from './migrations/2026-11-24T0200-survey-invitations.ts';
import * as dashboardUsers from './migrations/2026-11-24T0300-dashboard-users.ts';
import * as filtersSync from './migrations/2026-11-24T0400-filters-sync.ts';
import * as webhookRotation from './migrations/2026-11-24T0500-webhook-rotation.ts';
import * as invitationPlanning from './migrations/2026-11-24T0600-invitation-planning.ts';
import * as reviewMonthlyStats from './migrations/2026-11-24T0700-review-monthly-stats.ts';
import * as monthlyStarsAndReplyTimes from './migrations/2026-11-26T1200-monthly-stars-and-reply-times.ts';
import * as sessionChangeSignal from './migrations/2026-11-26T1400-session-change-signal.ts';
import * as extractionQueueByReview from './migrations/2026-11-27T0400-extraction-queue-by-review.ts';
import * as attemptsWithoutForeignKey from './migrations/2026-11-27T2300-attempts-without-foreign-key.ts';
import * as deliveriesEventReference from './migrations/2026-11-28T1900-deliveries-event-reference.ts';
import * as recommendationFacts from './migrations/2026-11-29T0600-recommendation-facts.ts';
import * as passwordResets from './migrations/2026-11-29T1200-password-resets.ts';

// Listed explicitly (not read from the folder) so they work the same under tsx and in a bundle.
const migrations: Record<string, Migration> = {
  '2026-11-22T1000-initial': initial,
  '2026-11-23T1200-webhook-leases': webhookLeases,
  '2026-11-23T1300-insight-survey-indexes': insightSurveyIndexes,
  '2026-11-23T1400-pending-deliveries-index': pendingDeliveriesIndex,
  '2026-11-23T2030-import-keys': importKeys,
  '2026-11-24T0100-extraction': extraction,
  '2026-11-24T0200-survey-invitations': surveyInvitations,
  '2026-11-24T0300-dashboard-users': dashboardUsers,
  '2026-11-24T0400-filters-sync': filtersSync,
  '2026-11-24T0500-webhook-rotation': webhookRotation,
  '2026-11-24T0600-invitation-planning': invitationPlanning,
  '2026-11-24T0700-review-monthly-stats': reviewMonthlyStats,
  '2026-11-26T1200-monthly-stars-and-reply-times': monthlyStarsAndReplyTimes,
  '2026-11-26T1400-session-change-signal': sessionChangeSignal,
  '2026-11-27T0400-extraction-queue-by-review': extractionQueueByReview,
  '2026-11-27T2300-attempts-without-foreign-key': attemptsWithoutForeignKey,
  '2026-11-28T1900-deliveries-event-reference': deliveriesEventReference,
  '2026-11-29T0600-recommendation-facts': recommendationFacts,
  '2026-11-29T1200-password-resets': passwordResets,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * PostgreSQL: Kysely's Migrator looks for its bookkeeping tables by introspecting EVERY schema
 * (taking another test's or benchmark's kysely_migration as its own, and failing with "schema …
 * does not exist" when another schema is dropped meanwhile). It gets the working schema only.
 */
function scopedToSchema(db: Kysely<any>, schema: string): Kysely<any> {
  const introspection = {
    getSchemas: async () => [{ name: schema }],
    getTables: async () => (await sql<{ name: string }>`select c.relname as name from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relkind in ('r', 'p')`.execute(db))
      .rows.map((r) => ({ name: r.name, schema, isView: false, columns: [] })),
    getMetadata: async () => ({ tables: [] }),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = schema
    ? new Migrator({ db: scopedToSchema(db, schema), provider, migrationTableSchema: schema })
    : new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw newerDatabase(error) ?? (error instanceof Error ? error : new Error(String(error)));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's words for a database that holds a migration this version does not know ("corrupted
 * migrations: previously executed migration X is missing"): a newer Repute migrated it. Told as such,
 * since it is what an operator meets when rolling back a deploy.
 */
function newerDatabase(error: unknown): Error | null {
  const missing = /previously executed migration (\S+) is missing/.exec(error instanceof Error ? error.message : String(error));
  if (missing === null) return null;
  return new Error(`the database was migrated by a newer version of Repute (its migration ${missing[1]} is unknown to this one): run that version, or restore a backup taken before the upgrade`);
}
