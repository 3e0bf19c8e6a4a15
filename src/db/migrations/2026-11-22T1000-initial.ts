// The initial schema: every table of Repute v4. Frozen: never edit, add a new migration instead.
// Portable across SQLite and PostgreSQL: ids and timestamps are text (ISO 8601 UTC with
// milliseconds, so text order is time order), booleans are 0/1 integers, JSON is text.
// On PostgreSQL text columns use the "C" collation so comparisons are plain byte order.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const str = pg ? sql`text collate "C"` : sql`text`;
  const real = pg ? sql`double precision` : sql`real`;

  await db.schema.createTable('accounts')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan_features', 'text', (c) => c.notNull())
    .addColumn('webhook_endpoint_limit', 'integer')
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();

  // Materialised path: "/<root id>/<child id>/…/<own id>/". A subtree is one indexed prefix range.
  await db.schema.createTable('nodes')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('parent_id', str, (c) => c.references('nodes.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('path', str, (c) => c.notNull())
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('nodes_path').on('nodes').columns(['path']).unique().execute();
  await db.schema.createIndex('nodes_account').on('nodes').columns(['account_id', 'path']).execute();

  await db.schema.createTable('api_keys')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('name', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('key_hash', str, (c) => c.notNull().unique())
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('revoked_at', str)
    .execute();

  await db.schema.createTable('reviews')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('platform', str, (c) => c.notNull())
    .addColumn('external_id', str, (c) => c.notNull())
    .addColumn('author', 'text')
    .addColumn('rating', real)
    .addColumn('rating_normalized', real)
    .addColumn('title', 'text')
    .addColumn('text', 'text')
    .addColumn('url', 'text')
    .addColumn('language', 'text')
    .addColumn('sentiment', 'text')
    .addColumn('owner_reply', 'text')
    .addColumn('replied_at', str)
    .addColumn('reviewed_at', str, (c) => c.notNull())
    .addColumn('is_hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recommend', 'integer')
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('updated_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reviews_identity').on('reviews').columns(['account_id', 'platform', 'external_id']).unique().execute();
  await db.schema.createIndex('reviews_node_time').on('reviews').columns(['node_id', 'reviewed_at', 'id']).execute();
  await db.schema.createIndex('reviews_account_time').on('reviews').columns(['account_id', 'reviewed_at', 'id']).execute();

  // Analytics aggregates of visible (not hidden) reviews per (node, platform), kept current in the
  // transaction of every review write, so /analytics/scores never scans reviews.
  await db.schema.createTable('review_stats')
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('platform', str, (c) => c.notNull())
    .addColumn('reviews', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', real, (c) => c.notNull().defaultTo(0))
    .addColumn('normalized_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('normalized_sum', real, (c) => c.notNull().defaultTo(0))
    .addColumn('recommend_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recommend_yes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replied', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('review_stats_pk', ['node_id', 'platform'])
    .execute();

  await db.schema.createTable('alert_rules')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('max_rating', real)
    .addColumn('sentiments', 'text')
    .addColumn('keywords', 'text')
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_rules_account').on('alert_rules').columns(['account_id']).execute();

  await db.schema.createTable('surveys')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', str, (c) => c.notNull())
    .addColumn('primary_language', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('published_definition', 'text')
    .addColumn('published_at', str)
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('updated_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('surveys_node_time').on('surveys').columns(['node_id', 'created_at', 'id']).execute();

  // Respondent e-mail, context and token are stored for the operator and never leave through the API.
  await db.schema.createTable('survey_responses')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('survey_id', str, (c) => c.notNull().references('surveys.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('status', str, (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('overall_score', real)
    .addColumn('respondent_email', 'text')
    .addColumn('context', 'text')
    .addColumn('token', str)
    .addColumn('started_at', str, (c) => c.notNull())
    .addColumn('completed_at', str)
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('survey_responses_survey_time').on('survey_responses').columns(['survey_id', 'created_at', 'id']).execute();

  await db.schema.createTable('survey_answers')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('response_id', str, (c) => c.notNull().references('survey_responses.id'))
    .addColumn('question_id', 'text', (c) => c.notNull())
    .addColumn('question_path', 'text', (c) => c.notNull())
    .addColumn('question_type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('numeric_value', real)
    .addColumn('comment', 'text')
    .addColumn('answered_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('survey_answers_response').on('survey_answers').columns(['response_id', 'answered_at', 'id']).execute();

  // account_id null: a global topic, readable by every account.
  await db.schema.createTable('topics')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('parent_label_id', str, (c) => c.references('topics.id'))
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('topics_account').on('topics').columns(['account_id', 'name']).execute();

  // node_id is copied from the review so subtree lists need no join to find their rows.
  await db.schema.createTable('mentions')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('review_id', str, (c) => c.notNull().references('reviews.id'))
    .addColumn('node_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('canonical_label_id', str, (c) => c.notNull().references('topics.id'))
    .addColumn('custom_category_id', str)
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('source_field', 'text', (c) => c.notNull())
    .addColumn('sentiment', 'text')
    .addColumn('confidence', real)
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mentions_node_time').on('mentions').columns(['node_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('mentions_review').on('mentions').columns(['review_id']).execute();

  await db.schema.createTable('recommendations')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('impact', 'text')
    .addColumn('canonical_label_id', str, (c) => c.references('topics.id'))
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recommendations_account_time').on('recommendations').columns(['account_id', 'created_at', 'id']).execute();

  // Guests: identity (property, normalised e-mail). marketing_consent: unknown | granted | withdrawn.
  await db.schema.createTable('guests')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('property_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('email', str, (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('salutation', 'text')
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('phone', 'text')
    .addColumn('country_code', 'text')
    .addColumn('language_code', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('marketing_consent', 'text', (c) => c.notNull().defaultTo('unknown'))
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('updated_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guests_identity').on('guests').columns(['property_id', 'email']).unique().execute();

  await db.schema.createTable('reservations')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('property_id', str, (c) => c.notNull().references('nodes.id'))
    .addColumn('guest_id', str, (c) => c.notNull().references('guests.id'))
    .addColumn('external_id', str, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('raw_status', 'text')
    .addColumn('check_in', str)
    .addColumn('check_out', str)
    .addColumn('checked_in_at', str)
    .addColumn('checked_out_at', str)
    .addColumn('channel', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('updated_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reservations_identity').on('reservations').columns(['property_id', 'external_id']).unique().execute();
  await db.schema.createIndex('reservations_guest').on('reservations').columns(['guest_id']).execute();

  // GDPR erasure leaves only a one-way fingerprint of (property, e-mail), so the guest is never repopulated.
  await db.schema.createTable('erased_guests')
    .addColumn('property_id', str, (c) => c.notNull())
    .addColumn('fingerprint', str, (c) => c.notNull())
    .addColumn('erased_at', str, (c) => c.notNull())
    .addPrimaryKeyConstraint('erased_guests_pk', ['property_id', 'fingerprint'])
    .execute();

  await db.schema.createTable('webhook_endpoints')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', str, (c) => c.notNull())
    .addColumn('updated_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').columns(['account_id']).execute();

  // The outbox: one row per event, written in the transaction that caused it.
  await db.schema.createTable('events')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull().references('accounts.id'))
    .addColumn('type', str, (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account_time').on('events').columns(['account_id', 'created_at']).execute();

  // One delivery per (event, endpoint), fanned out in the same transaction as the event.
  await db.schema.createTable('webhook_deliveries')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('account_id', str, (c) => c.notNull())
    .addColumn('endpoint_id', str, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', str, (c) => c.notNull().references('events.id'))
    .addColumn('event_type', str, (c) => c.notNull())
    .addColumn('status', str, (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_attempt_at', str)
    .addColumn('next_attempt_at', str, (c) => c.notNull())
    .addColumn('lease_until', str)
    .addColumn('created_at', str, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_time').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();

  await db.schema.createTable('webhook_attempts')
    .addColumn('id', str, (c) => c.primaryKey())
    .addColumn('delivery_id', str, (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', str, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'webhook_attempts', 'webhook_deliveries', 'events', 'webhook_endpoints', 'erased_guests', 'reservations',
    'guests', 'recommendations', 'mentions', 'topics', 'survey_answers', 'survey_responses', 'surveys',
    'alert_rules', 'review_stats', 'reviews', 'api_keys', 'nodes', 'accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
