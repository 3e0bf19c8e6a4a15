// SQL of surveys, responses and answers: subtree pages, single reads, writes.
import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import { subtreePage, type SubtreeScope, whereNodeFilter } from '../../db/subtree-page.ts';
import type { DB, SurveyAnswerRow, SurveyResponseRow, SurveyRow, SurveyTable, SurveyResponseTable, SurveyAnswerTable } from '../../db/schema.ts';
import type { Keyset } from '../../db/keyset.ts';

const SURVEY_COLUMNS = ['id', 'name', 'description', 'node_id', 'status', 'primary_language', 'published_at', 'created_at'] as const;
export type SurveyListRow = Pick<SurveyRow, (typeof SURVEY_COLUMNS)[number]>;

// Respondent e-mail, context and token are deliberately not among these: they never leave.
const RESPONSE_COLUMNS = [
  'id', 'survey_id', 'node_id', 'status', 'channel', 'overall_score', 'started_at', 'completed_at', 'created_at', 'updated_at',
] as const;
export type ResponsePublicRow = Pick<SurveyResponseRow, (typeof RESPONSE_COLUMNS)[number]>;

/** One page of published surveys owned by nodes of the subtree, newest first on (created_at, id); limit + 1 rows. */
export async function listPublishedSurveyPage(db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number): Promise<SurveyListRow[]> {
  return subtreePage(db, scope, after, limit, 'created_at', (filter) =>
    whereNodeFilter(db.selectFrom('surveys').select(SURVEY_COLUMNS).where('status', '=', 'published'), filter), 'desc', 'surveys');
}

/** The published surveys owned by `nodes` (the nodes above a dashboard user's), newest first. */
export async function publishedSurveysOf(db: Kysely<DB>, accountId: string, nodes: readonly string[]): Promise<SurveyListRow[]> {
  return db.selectFrom('surveys').select(SURVEY_COLUMNS).where('account_id', '=', accountId).where('status', '=', 'published')
    .where('node_id', 'in', nodes).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The draft surveys owned by `nodes` (a dashboard user's subtree), newest first. */
export async function draftSurveysOf(db: Kysely<DB>, accountId: string, nodes: readonly string[]): Promise<SurveyListRow[]> {
  if (nodes.length === 0) return [];
  return db.selectFrom('surveys').select(SURVEY_COLUMNS).where('account_id', '=', accountId).where('status', '=', 'draft')
    .where('node_id', 'in', nodes).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The filters of a response list (already checked); `sync` switches to the oldest-change-first order. */
export interface ResponseFilters {
  status?: string;
  /** created_at at or after (inclusive) / before (exclusive). */
  from?: string;
  to?: string;
  /** Ascending (updated_at, id) from this stamp (inclusive), below the horizon (exclusive) when there is one. */
  sync?: { since: string | null; horizon: string | null };
}

/**
 * One page of a survey's responses given at nodes of the subtree: newest first on (created_at, id),
 * or with `sync` oldest change first on (updated_at, id); limit + 1 rows.
 */
export async function listResponsePage(
  db: Kysely<DB>, scope: SubtreeScope, surveyId: string, after: Keyset | null, limit: number, f: ResponseFilters = {},
): Promise<ResponsePublicRow[]> {
  return subtreePage(db, scope, after, limit, f.sync ? 'updated_at' : 'created_at', (filter) => {
    let q = whereNodeFilter(db.selectFrom('survey_responses').select(RESPONSE_COLUMNS).where('survey_id', '=', surveyId), filter);
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
    if (f.to !== undefined) q = q.where('created_at', '<', f.to);
    if (f.sync?.since != null) q = q.where('updated_at', '>=', f.sync.since);
    if (f.sync?.horizon != null) q = q.where('updated_at', '<', f.sync.horizon);
    return q;
  }, f.sync ? 'asc' : 'desc');
}

export async function findSurvey(db: Kysely<DB>, id: string): Promise<SurveyRow | undefined> {
  return db.selectFrom('surveys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertSurvey(db: Kysely<DB>, row: Insertable<SurveyTable>): Promise<void> {
  await db.insertInto('surveys').values(row).execute();
}

export async function updateSurvey(db: Kysely<DB>, id: string, changes: Updateable<SurveyTable>): Promise<void> {
  await db.updateTable('surveys').set(changes).where('id', '=', id).execute();
}

export async function findResponse(db: Kysely<DB>, id: string): Promise<SurveyResponseRow | undefined> {
  return db.selectFrom('survey_responses').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertResponse(db: Kysely<DB>, row: Insertable<SurveyResponseTable>): Promise<void> {
  await db.insertInto('survey_responses').values(row).execute();
}

export async function insertAnswers(db: Kysely<DB>, rows: Insertable<SurveyAnswerTable>[]): Promise<void> {
  // Chunked so a long questionnaire stays under every driver's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('survey_answers').values(rows.slice(i, i + 500)).execute();
  }
}

/**
 * Marks a response completed unless it already is; answers whether this call did it. The condition
 * sits in the UPDATE itself so two concurrent completions cannot both win (and both emit the event).
 */
export async function markCompleted(db: Kysely<DB>, id: string, completedAt: string, updatedAt: string): Promise<boolean> {
  const result = await db.updateTable('survey_responses').set({ status: 'completed', completed_at: completedAt, updated_at: updatedAt })
    .where('id', '=', id).where('status', '<>', 'completed').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function updateResponse(db: Kysely<DB>, id: string, changes: Updateable<SurveyResponseTable>): Promise<void> {
  await db.updateTable('survey_responses').set(changes).where('id', '=', id).execute();
}

/** A response's answers in the order they were given: (answered_at, id). */
export async function listAnswers(db: Kysely<DB>, responseId: string): Promise<SurveyAnswerRow[]> {
  return db.selectFrom('survey_answers').selectAll().where('response_id', '=', responseId)
    .orderBy('answered_at').orderBy('id').execute();
}

export interface SurveyFigures { survey_id: string; responses: number; completed: number; promoters: number; detractors: number; nps_answers: number }

/** Per survey: responses and completed ones in the nodes, and the NPS answers' promoters and detractors. */
export async function surveyFigures(db: Kysely<DB>, surveyIds: readonly string[], nodeIds: readonly string[]): Promise<SurveyFigures[]> {
  if (surveyIds.length === 0 || nodeIds.length === 0) return [];
  const { rows } = await sql<SurveyFigures>`
    select r.survey_id, count(*) as responses, count(r.completed_at) as completed,
      coalesce(sum(n.promoters), 0) as promoters, coalesce(sum(n.detractors), 0) as detractors, coalesce(sum(n.answers), 0) as nps_answers
    from survey_responses r
    left join (select response_id, sum(case when numeric_value >= 9 then 1 else 0 end) as promoters,
                 sum(case when numeric_value <= 6 then 1 else 0 end) as detractors, count(*) as answers
               from survey_answers where question_type = 'nps' group by response_id) n on n.response_id = r.id
    where r.survey_id in (${sql.join(surveyIds)}) and r.node_id in (${sql.join(nodeIds)})
    group by r.survey_id`.execute(db);
  return rows.map((r) => ({ survey_id: r.survey_id, responses: Number(r.responses), completed: Number(r.completed), promoters: Number(r.promoters), detractors: Number(r.detractors), nps_answers: Number(r.nps_answers) }));
}

/** Promoters, detractors and all NPS answers of the responses in some nodes since `from`. */
export async function npsSince(db: Kysely<DB>, nodeIds: readonly string[], from: string): Promise<{ promoters: number; detractors: number; answers: number }> {
  if (nodeIds.length === 0) return { promoters: 0, detractors: 0, answers: 0 };
  const { rows } = await sql<{ promoters: number; detractors: number; answers: number }>`
    select coalesce(sum(case when a.numeric_value >= 9 then 1 else 0 end), 0) as promoters,
      coalesce(sum(case when a.numeric_value <= 6 then 1 else 0 end), 0) as detractors, count(*) as answers
    from survey_answers a join survey_responses r on r.id = a.response_id
    where a.question_type = 'nps' and r.node_id in (${sql.join(nodeIds)}) and r.created_at >= ${from}`.execute(db);
  const row = rows[0];
  return { promoters: Number(row?.promoters ?? 0), detractors: Number(row?.detractors ?? 0), answers: Number(row?.answers ?? 0) };
}
