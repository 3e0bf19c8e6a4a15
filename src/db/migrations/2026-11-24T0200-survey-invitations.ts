// Survey collection (shared/spec/surveys.md): invitation rules, and one invitation per stay, which
// is also the outbox row the worker sends from (claimed with a lease, retried on a schedule, the
// SMTP reason kept). Tokens are stored as SHA-256 hex of the random value in the link.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('invitation_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('survey_id', 'text', (c) => c.notNull().references('surveys.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('delay_hours', 'double precision', (c) => c.notNull())
    .addColumn('consent', 'text', (c) => c.notNull())
    .addColumn('max_age_days', 'integer', (c) => c.notNull())
    .addColumn('cooldown_days', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invitation_rules_account').on('invitation_rules').columns(['account_id']).execute();
  await db.schema.createIndex('invitation_rules_survey').on('invitation_rules').columns(['survey_id']).execute();

  await db.schema.createTable('survey_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('survey_id', 'text', (c) => c.notNull().references('surveys.id').onDelete('cascade'))
    .addColumn('rule_id', 'text')
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    .addColumn('guest_id', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    /** scheduled | sending | sent | failed | cancelled (skipped at send time: consent, erasure, cooldown, stay cancelled). */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('survey_token_hash', 'text', (c) => c.notNull())
    .addColumn('unsubscribe_token_hash', 'text', (c) => c.notNull())
    .addColumn('send_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('opened_at', 'text')
    .addColumn('answered_at', 'text')
    .addColumn('response_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A stay is invited at most once, whatever rules, crashes or concurrent workers.
  await db.schema.createIndex('survey_invitations_stay').on('survey_invitations').columns(['reservation_id']).unique().execute();
  await db.schema.createIndex('survey_invitations_survey_token').on('survey_invitations').columns(['survey_token_hash']).unique().execute();
  await db.schema.createIndex('survey_invitations_unsubscribe_token').on('survey_invitations').columns(['unsubscribe_token_hash']).unique().execute();
  await db.schema.createIndex('survey_invitations_due').on('survey_invitations').columns(['status', 'send_at']).execute();
  await db.schema.createIndex('survey_invitations_list').on('survey_invitations').columns(['survey_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('survey_invitations_guest').on('survey_invitations').columns(['guest_id', 'sent_at']).execute();

  // A withdrawal by unsubscribe outlives any later push that grants consent.
  await db.schema.alterTable('guests').addColumn('unsubscribed_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('guests').dropColumn('unsubscribed_at').execute();
  await db.schema.dropTable('survey_invitations').execute();
  await db.schema.dropTable('invitation_rules').execute();
}
