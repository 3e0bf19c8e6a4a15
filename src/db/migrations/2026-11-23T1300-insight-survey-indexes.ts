// Indexes for the survey and insight pages: a root key's mention page is one ordered scan of
// (account_id, created_at, id); a property's page of one survey's responses is one seek on
// (survey_id, node_id, created_at, id) instead of a walk through every response of the survey.
// Frozen: never edit, add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('mentions_account_time').on('mentions').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('survey_responses_survey_node_time')
    .on('survey_responses').columns(['survey_id', 'node_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('surveys_account_time').on('surveys').columns(['account_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('surveys_account_time').execute();
  await db.schema.dropIndex('survey_responses_survey_node_time').execute();
  await db.schema.dropIndex('mentions_account_time').execute();
}
