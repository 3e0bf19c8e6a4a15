// The Database type for Kysely: one interface per table, as the migrations (src/db/migrations/) leave them.
// Ids and timestamps are ISO/UUID text, booleans 0/1 integers, JSON columns text.
import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

export interface AccountTable {
  id: string;
  name: string;
  plan_features: string;
  webhook_endpoint_limit: number | null;
  created_at: string;
}

export interface NodeTable {
  id: string;
  account_id: string;
  parent_id: string | null;
  name: string;
  type: string;
  path: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  node_id: string;
  name: string | null;
  scopes: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** Added by the dashboard-users migration; written at most once a minute per key. */
  last_used_at: string | null;
}

export interface ReviewTable {
  id: string;
  account_id: string;
  node_id: string;
  platform: string;
  external_id: string;
  author: string | null;
  rating: number | null;
  rating_normalized: number | null;
  title: string | null;
  text: string | null;
  url: string | null;
  language: string | null;
  sentiment: string | null;
  owner_reply: string | null;
  replied_at: string | null;
  reviewed_at: string;
  is_hidden: number;
  recommend: number | null;
  created_at: string;
  updated_at: string;
  /** 1 when the insights engine computed `sentiment` (the review arrived without one). */
  sentiment_computed: number;
}

/** review_stats per calendar month (YYYY-MM) of reviewed_at. */
export interface ReviewMonthlyStatsTable extends ReviewStatsTable {
  month: string;
  /** Reviews by star: the rating rounded half up (added by the monthly-stars migration). */
  stars_1: number;
  stars_2: number;
  stars_3: number;
  stars_4: number;
  stars_5: number;
  /** Reviews with a replied_at, and the sum of their replied_at − reviewed_at in seconds. */
  reply_timed: number;
  reply_seconds: number;
}

export interface ReviewStatsTable {
  node_id: string;
  platform: string;
  reviews: number;
  rating_count: number;
  rating_sum: number;
  normalized_count: number;
  normalized_sum: number;
  recommend_count: number;
  recommend_yes: number;
  replied: number;
}

export interface AlertRuleTable {
  id: string;
  account_id: string;
  node_id: string;
  max_rating: number | null;
  sentiments: string | null;
  keywords: string | null;
  created_at: string;
}

export interface SurveyTable {
  id: string;
  account_id: string;
  node_id: string;
  name: string;
  description: string;
  status: string;
  primary_language: string;
  definition: string;
  published_definition: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** Identity of an imported record (src/import/identity.ts); null when made elsewhere. */
  import_key: string | null;
}

export interface SurveyResponseTable {
  id: string;
  account_id: string;
  survey_id: string;
  node_id: string;
  status: string;
  channel: string;
  overall_score: number | null;
  respondent_email: string | null;
  context: string | null;
  token: string | null;
  started_at: string;
  completed_at: string | null;
  created_at: string;
  /** Identity of an imported record (src/import/identity.ts); null when made elsewhere. */
  import_key: string | null;
  /** The change stamp of its last change (db/change-stamp.ts); the responses' sync order. */
  updated_at: string;
}

export interface SurveyAnswerTable {
  id: string;
  response_id: string;
  question_id: string;
  question_path: string;
  question_type: string;
  value: string;
  numeric_value: number | null;
  comment: string | null;
  answered_at: string;
}

export interface TopicTable {
  id: string;
  account_id: string | null;
  name: string;
  language: string | null;
  parent_label_id: string | null;
  created_at: string;
  /** An account's own category: keyword lists per language, JSON `{ "en": ["…"], … }`; null otherwise. */
  keywords: string | null;
  /** Identity of an imported record (src/import/identity.ts); null when made elsewhere. */
  import_key: string | null;
}

export interface MentionTable {
  id: string;
  account_id: string;
  review_id: string;
  node_id: string;
  canonical_label_id: string;
  custom_category_id: string | null;
  text: string;
  source_field: string;
  sentiment: string | null;
  confidence: number | null;
  created_at: string;
  /** 1 for the insights engine's mentions (a re-extraction replaces them); 0 for an operator's. */
  extracted: number;
  /** Identity of an imported record (src/import/identity.ts); null when made elsewhere. */
  import_key: string | null;
}

export interface RecommendationTable {
  id: string;
  account_id: string;
  title: string;
  body: string;
  priority: string;
  impact: string | null;
  canonical_label_id: string | null;
  created_at: string;
  /** The node a generated recommendation is about; null for an operator's. */
  node_id: string | null;
  /** account/node/topic of a generated recommendation (updated in place); null for an operator's. */
  generated_key: string | null;
  updated_at: string | null;
  /** Identity of an imported record (src/import/identity.ts); null when made elsewhere. */
  import_key: string | null;
  /** A generated recommendation's figures as JSON (src/modules/insights/recommendation-facts.ts); null for an operator's. */
  facts: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface GuestTable {
  id: string;
  account_id: string;
  property_id: string;
  email: string;
  source: string;
  salutation: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  country_code: string | null;
  language_code: string | null;
  custom_fields: string;
  marketing_consent: string;
  created_at: string;
  updated_at: string;
  /** Set by an unsubscribe link; a later push that grants consent does not clear it. */
  unsubscribed_at: string | null;
}

export interface ReservationTable {
  id: string;
  account_id: string;
  property_id: string;
  guest_id: string;
  external_id: string;
  status: string;
  raw_status: string | null;
  check_in: string | null;
  check_out: string | null;
  checked_in_at: string | null;
  checked_out_at: string | null;
  channel: string | null;
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

export interface InvitationRuleTable {
  id: string;
  account_id: string;
  survey_id: string;
  node_id: string;
  delay_hours: number;
  /** granted | not_withdrawn */
  consent: string;
  max_age_days: number;
  cooldown_days: number;
  created_at: string;
}

export interface SurveyInvitationTable {
  id: string;
  account_id: string;
  survey_id: string;
  rule_id: string | null;
  /** The stay (reservations.id); unique: a stay is invited at most once. */
  reservation_id: string;
  guest_id: string;
  node_id: string;
  language: string;
  /** scheduled | sending | sent | failed | cancelled */
  status: string;
  /** SHA-256 hex of the random token in the survey link /s/<token>. */
  survey_token_hash: string;
  /** SHA-256 hex of the random token in the unsubscribe link /u/<token>. */
  unsubscribe_token_hash: string;
  send_at: string;
  attempts: number;
  last_error: string | null;
  lease_until: string | null;
  sent_at: string | null;
  opened_at: string | null;
  answered_at: string | null;
  response_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExtractionQueueTable {
  review_id: string;
  account_id: string;
  enqueued_at: string;
  lease_until: string | null;
  attempts: number;
}

export interface InsightRunTable {
  name: string;
  last_run_at: string;
}

export interface ErasedGuestTable {
  property_id: string;
  fingerprint: string;
  erased_at: string;
}

export interface WebhookEndpointTable {
  id: string;
  account_id: string;
  name: string;
  url: string;
  events: string;
  is_active: number;
  secret_enc: string;
  /** The secret before the last rotation, sealed the same way; signs too until previous_secret_until. */
  previous_secret_enc: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** The first failed attempt since the last successful one (manual re-sends aside); null when healthy. */
  failing_since: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why Repute set is_active to false (auto-disable, 410 Gone); null otherwise. */
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
}

export interface EventTable {
  id: string;
  account_id: string;
  type: string;
  payload: string;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_attempt_at: string | null;
  next_attempt_at: string;
  lease_until: string | null;
  /** The claim that holds the lease (added by the webhook-leases migration). */
  lease_owner: string | null;
  /** While a one-off attempt is due (src/delivery/manual-retry.ts): 1 a re-send asked through the API, 2 an operator's retry; else 0. */
  manual_retry: ColumnType<number, number | undefined, number>;
  created_at: string;
}

export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface UserTable {
  id: string;
  account_id: string;
  email: string;
  /** The e-mail in lower case: unique in the instance. */
  email_key: string;
  password_hash: string;
  role: string;
  /** null: the whole account (the root node's subtree). */
  node_id: string | null;
  /** 'en' | 'de', or null: follow the browser. */
  language: string | null;
  created_at: string;
}

export interface UserSessionTable {
  /** SHA-256 (hex) of the cookie's random id: the id itself is never stored. */
  id_hash: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, whatever the activity. */
  expires_at: string;
}

/** A link to choose a new password (src/modules/users/password-reset.ts). */
export interface PasswordResetTable {
  /** SHA-256 (hex) of the link's token: the token itself is only in the e-mail. */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/** SQLite's monotonic change stamp: one row (id 1), the last stamp handed out. */
export interface ChangeClockTable {
  id: number;
  last: string;
}

export interface DB {
  accounts: AccountTable;
  nodes: NodeTable;
  api_keys: ApiKeyTable;
  reviews: ReviewTable;
  review_stats: ReviewStatsTable;
  review_monthly_stats: ReviewMonthlyStatsTable;
  alert_rules: AlertRuleTable;
  surveys: SurveyTable;
  survey_responses: SurveyResponseTable;
  survey_answers: SurveyAnswerTable;
  topics: TopicTable;
  mentions: MentionTable;
  recommendations: RecommendationTable;
  guests: GuestTable;
  reservations: ReservationTable;
  erased_guests: ErasedGuestTable;
  extraction_queue: ExtractionQueueTable;
  insight_runs: InsightRunTable;
  invitation_rules: InvitationRuleTable;
  survey_invitations: SurveyInvitationTable;
  webhook_endpoints: WebhookEndpointTable;
  events: EventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  users: UserTable;
  user_sessions: UserSessionTable;
  password_resets: PasswordResetTable;
  change_clock: ChangeClockTable;
}

export type AccountRow = Selectable<AccountTable>;
export type NodeRow = Selectable<NodeTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type ReviewRow = Selectable<ReviewTable>;
export type NewReview = Insertable<ReviewTable>;
export type ReviewUpdate = Updateable<ReviewTable>;
export type SurveyRow = Selectable<SurveyTable>;
export type SurveyResponseRow = Selectable<SurveyResponseTable>;
export type SurveyAnswerRow = Selectable<SurveyAnswerTable>;
export type TopicRow = Selectable<TopicTable>;
export type MentionRow = Selectable<MentionTable>;
export type RecommendationRow = Selectable<RecommendationTable>;
export type GuestRow = Selectable<GuestTable>;
export type ReservationRow = Selectable<ReservationTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type UserRow = Selectable<UserTable>;
export type UserSessionRow = Selectable<UserSessionTable>;
