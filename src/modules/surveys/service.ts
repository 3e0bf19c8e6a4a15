// Survey rules: what a key may see (published surveys owned in its subtree, responses given in its
// subtree), the operator's writes, and survey.response_completed, emitted once per response ever.
import type { Kysely } from 'kysely';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import type { Keyset } from '../../db/keyset.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { DB, SurveyAnswerRow, SurveyResponseRow, SurveyRow } from '../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import { type PageOf, toPage } from '../../http/pagination.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { nowIso, toIso, toIsoOrNull } from '../../lib/time.ts';
import { changeStamp, syncHorizon } from '../../db/change-stamp.ts';
import { timeRange } from '../../http/time-range.ts';
import { requireAccount } from '../accounts/service.ts';
import { NOT_WITHIN_REACH, requireAccountNode } from '../nodes/service.ts';
import { overallScore, type ParsedAnswer } from './answers.ts';
import { parseDefinition } from './definition.ts';
import * as repo from './repository.ts';
import { POST_STAY_TEMPLATE } from './templates.ts';
import type { ResponseCreated, ResponseInput, ResponseListQuery, Survey, SurveyAnswer, SurveyDetail, SurveyInput, SurveyResponse } from './schemas.ts';

function toSurvey(row: repo.SurveyListRow): Survey {
  return {
    id: row.id, name: row.name, description: row.description, node_id: row.node_id, status: row.status,
    primary_language: row.primary_language, published_at: row.published_at, created_at: row.created_at,
  };
}

function toSurveyDetail(row: SurveyRow): SurveyDetail {
  return { ...toSurvey(row), published_definition: parseJson<Record<string, unknown> | null>(row.published_definition, null) };
}

/** The public response object: never the respondent's e-mail, context or token. */
function toResponse(row: repo.ResponsePublicRow): SurveyResponse {
  return {
    id: row.id, survey_id: row.survey_id, node_id: row.node_id, status: row.status, channel: row.channel,
    overall_score: row.overall_score, started_at: row.started_at, completed_at: row.completed_at, created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toAnswer(row: SurveyAnswerRow): SurveyAnswer {
  return {
    id: row.id, question_id: row.question_id, question_path: row.question_path, question_type: row.question_type,
    value: JSON.parse(row.value) as unknown, numeric_value: row.numeric_value, comment: row.comment, answered_at: row.answered_at,
  };
}

// ---- public reads ----

export async function listSurveys(db: Kysely<DB>, principal: Principal, after: Keyset | null, limit: number): Promise<PageOf<Survey>> {
  const rows = await repo.listPublishedSurveyPage(db, subtreeScope(principal), after, limit);
  return toPage(rows, limit, (r) => ({ time: r.created_at, id: r.id }), toSurvey);
}

/**
 * A published survey of the key's account whose owner node is in the key's subtree (or, for a
 * dashboard user, above their node: Principal.ancestors), or 404.
 */
async function visibleSurvey(db: Kysely<DB>, principal: Principal, id: string): Promise<SurveyRow> {
  const row = await lookup(id, (uuid) => repo.findSurvey(db, uuid));
  if (!row || row.account_id !== principal.accountId || row.status !== 'published'
    || !(principal.inSubtree(row.node_id) || (principal.ancestors?.includes(row.node_id) ?? false))) {
    throw notFound('survey');
  }
  return row;
}

export async function getSurvey(db: Kysely<DB>, principal: Principal, id: string): Promise<SurveyDetail> {
  return toSurveyDetail(await visibleSurvey(db, principal, id));
}

export async function listResponses(
  db: Kysely<DB>, principal: Principal, surveyId: string, after: Keyset | null, limit: number, query: ResponseListQuery = {},
): Promise<PageOf<SurveyResponse>> {
  const survey = await visibleSurvey(db, principal, surveyId);
  const [from, to] = timeRange(query);
  const sync = query.sort === 'updated_at';
  if (query.updated_since !== undefined && !sync) throw invalid('querystring.updated_since needs sort=updated_at');
  const filters: repo.ResponseFilters = {
    ...(query.status !== undefined ? { status: query.status } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(sync ? { sync: { since: query.updated_since === undefined ? null : toIso(query.updated_since), horizon: await syncHorizon(db) } } : {}),
  };
  const rows = await repo.listResponsePage(db, subtreeScope(principal), survey.id, after, limit, filters);
  return toPage(rows, limit, (r) => ({ time: sync ? r.updated_at : r.created_at, id: r.id }), toResponse);
}

export async function listResponseAnswers(db: Kysely<DB>, principal: Principal, surveyId: string, responseId: string): Promise<SurveyAnswer[]> {
  const survey = await visibleSurvey(db, principal, surveyId);
  const response = await lookup(responseId, (uuid) => repo.findResponse(db, uuid));
  if (!response || response.survey_id !== survey.id || !principal.inSubtree(response.node_id)) throw notFound('response');
  return (await repo.listAnswers(db, response.id)).map(toAnswer);
}

// ---- operator writes (admin API, importer, demo) ----

async function requireSurvey(db: Kysely<DB>, id: string): Promise<SurveyRow> {
  const row = await lookup(id, (uuid) => repo.findSurvey(db, uuid));
  if (!row) throw notFound('survey');
  return row;
}

/** The account's survey by id; undefined when the account has none such. */
export async function findAccountSurvey(db: Kysely<DB>, accountId: string, id: string): Promise<SurveyRow | undefined> {
  const row = await lookup(id, (uuid) => repo.findSurvey(db, uuid));
  return row?.account_id === accountId ? row : undefined;
}

/** importKey: the importer's identity of the record (null elsewhere). */
export async function createSurvey(db: Kysely<DB>, accountId: string, input: SurveyInput, importKey: string | null = null): Promise<SurveyDetail> {
  return inTransaction(db, async (trx) => {
    await requireAccount(trx, accountId);
    await requireAccountNode(trx, accountId, input.node_id);
    parseDefinition(input.definition);
    const published = input.status === 'published';
    if (!published && input.published_at != null) throw invalid('body.published_at must be null unless status is published');
    const now = nowIso();
    const definition = JSON.stringify(input.definition);
    const row: SurveyRow = {
      id: newId(), account_id: accountId, node_id: input.node_id, name: input.name, description: input.description ?? '',
      status: input.status, primary_language: input.primary_language ?? 'en', definition,
      published_definition: published ? definition : null,
      published_at: published ? (toIsoOrNull(input.published_at) ?? now) : null,
      created_at: toIsoOrNull(input.created_at) ?? now, updated_at: now, import_key: importKey,
    };
    await repo.insertSurvey(trx, row);
    return toSurveyDetail(row);
  });
}

/** Publishes the survey's current definition (again, if it was published before). */
export async function publishSurvey(db: Kysely<DB>, surveyId: string): Promise<SurveyDetail> {
  return inTransaction(db, async (trx) => {
    const row = await requireSurvey(trx, surveyId);
    // Checked again: a definition stored before validation existed must not reach guests broken.
    parseDefinition(parseJson<unknown>(row.definition, null), 'definition');
    const now = nowIso();
    const changes = { status: 'published', published_definition: row.definition, published_at: now, updated_at: now };
    await repo.updateSurvey(trx, row.id, changes);
    return toSurveyDetail({ ...row, ...changes });
  });
}

/**
 * The rating scales of the survey as published (as drafted, for a survey not yet published), for
 * scoring imported answers. The admin API stores any object as a definition ({} included): only a
 * rating question with an id and a whole scale above 1 counts.
 */
function storedRatingScales(survey: SurveyRow): Map<string, number> {
  const stored = parseJson<{ pages?: unknown } | null>(survey.published_definition ?? survey.definition, null);
  const pages: unknown[] = Array.isArray(stored?.pages) ? stored.pages : [];
  const scales = new Map<string, number>();
  for (const page of pages) {
    const questions = (page as { questions?: unknown } | null)?.questions;
    for (const q of Array.isArray(questions) ? questions : []) {
      if (typeof q?.id === 'string' && q.type === 'rating' && Number.isInteger(q.scale) && q.scale > 1) scales.set(q.id, q.scale);
    }
  }
  return scales;
}

/** Stores a response and its answers; a completed one emits survey.response_completed in the same transaction. */
export async function createResponse(db: Kysely<DB>, surveyId: string, input: ResponseInput, importKey: string | null = null): Promise<ResponseCreated> {
  return inTransaction(db, async (trx) => {
    const survey = await requireSurvey(trx, surveyId);
    await requireAccountNode(trx, survey.account_id, input.node_id);
    const completed = input.status === 'completed';
    if (!completed && input.completed_at != null) throw invalid('body.completed_at must be null unless status is completed');
    const now = nowIso();
    const startedAt = toIsoOrNull(input.started_at) ?? now;
    const row: SurveyResponseRow = {
      id: newId(), account_id: survey.account_id, survey_id: survey.id, node_id: input.node_id, status: input.status,
      // Left out of a completed one, it is what the survey page makes of the answers when they are
      // submitted (surveys.md): the NPS answer, else the ratings' mean on 0–10. A started one has none yet.
      channel: input.channel,
      overall_score: input.overall_score ?? (completed && input.answers?.length ? overallScore(storedRatingScales(survey), input.answers) : null),
      respondent_email: input.respondent_email ?? null,
      context: input.context == null ? null : JSON.stringify(input.context),
      token: input.token ?? null,
      started_at: startedAt,
      completed_at: completed ? (toIsoOrNull(input.completed_at) ?? now) : null,
      // A response comes into being when it is started; imports carry that history.
      created_at: startedAt,
      import_key: importKey,
      updated_at: await changeStamp(trx),
    };
    const answers = (input.answers ?? []).map((a) => ({
      id: newId(), response_id: row.id, question_id: a.question_id, question_path: a.question_path ?? a.question_id,
      question_type: a.question_type, value: JSON.stringify(a.value ?? null), numeric_value: a.numeric_value ?? null,
      comment: a.comment ?? null, answered_at: toIsoOrNull(a.answered_at) ?? now,
    }));
    await repo.insertResponse(trx, row);
    await repo.insertAnswers(trx, answers);
    if (completed) {
      await appendEvent(trx, { accountId: row.account_id, type: 'survey.response_completed', data: { response: toResponse(row) } });
    }
    return { id: row.id, answer_ids: answers.map((a) => a.id) };
  });
}

/** Completes a started response (emitting the event); an already completed one is returned unchanged. */
export async function completeResponse(db: Kysely<DB>, responseId: string, completedAt?: string | null): Promise<SurveyResponse> {
  return inTransaction(db, async (trx) => {
    const row = await lookup(responseId, (uuid) => repo.findResponse(trx, uuid));
    if (!row) throw notFound('response');
    const at = toIsoOrNull(completedAt) ?? nowIso();
    const stamp = await changeStamp(trx);
    if (!(await repo.markCompleted(trx, row.id, at, stamp))) {
      const current = await repo.findResponse(trx, row.id);
      return toResponse(current ?? row);
    }
    // As stored: the answer and the event carry the new change stamp, not the row read before.
    const response = toResponse({ ...row, status: 'completed', completed_at: at, updated_at: stamp });
    await appendEvent(trx, { accountId: row.account_id, type: 'survey.response_completed', data: { response } });
    return response;
  });
}

// ---- the survey page guests answer (src/web/survey/) ----

/** A response opened by a guest: started now, no answers yet, no personal data. */
export async function startResponse(trx: Kysely<DB>, survey: SurveyRow, nodeId: string, channel: string): Promise<string> {
  const now = nowIso();
  const id = newId();
  await repo.insertResponse(trx, {
    id, account_id: survey.account_id, survey_id: survey.id, node_id: nodeId, status: 'started', channel, overall_score: null,
    respondent_email: null, context: null, token: null, started_at: now, completed_at: null, created_at: now, import_key: null,
    updated_at: await changeStamp(trx),
  });
  return id;
}

/**
 * Completes a started response with the page's answers and score, emitting
 * survey.response_completed; false (and nothing written) when it was completed already.
 */
export async function submitResponse(trx: Kysely<DB>, responseId: string, answers: readonly ParsedAnswer[], overallScore: number | null): Promise<boolean> {
  const now = nowIso();
  if (!(await repo.markCompleted(trx, responseId, now, await changeStamp(trx)))) return false;
  await repo.updateResponse(trx, responseId, { overall_score: overallScore });
  await repo.insertAnswers(trx, answers.map((a) => ({
    id: newId(), response_id: responseId, question_id: a.question_id, question_path: a.question_path, question_type: a.question_type,
    value: JSON.stringify(a.value), numeric_value: a.numeric_value, comment: null, answered_at: now,
  })));
  const row = await repo.findResponse(trx, responseId);
  await appendEvent(trx, { accountId: row!.account_id, type: 'survey.response_completed', data: { response: toResponse(row!) } });
  return true;
}

/** The survey by id (any status): the pages decide what a guest may see. */
export async function findSurveyRow(db: Kysely<DB>, id: string): Promise<SurveyRow | undefined> {
  return lookup(id, (uuid) => repo.findSurvey(db, uuid));
}

export async function findResponseRow(db: Kysely<DB>, id: string): Promise<SurveyResponseRow | undefined> {
  return repo.findResponse(db, id);
}

// ---- the dashboard's Surveys page ----

export interface SurveySummary extends Survey {
  responses: number;
  completed: number;
  /** Net Promoter Score (−100 to 100) of the NPS answers, null without any. */
  nps: number | null;
}

/** The published surveys the principal sees, with their responses in its subtree and their NPS. */
export async function surveySummaries(db: Kysely<DB>, principal: Principal, limit = 50): Promise<SurveySummary[]> {
  const own = (await listSurveys(db, principal, null, limit)).data;
  // A dashboard user's: the surveys of the nodes above too, newest first with the others.
  const above = principal.ancestors?.length ? (await repo.publishedSurveysOf(db, principal.accountId, principal.ancestors)).map(toSurvey) : [];
  const surveys = [...own, ...above].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)).slice(0, limit);
  const figures = new Map((await repo.surveyFigures(db, surveys.map((s) => s.id), principal.subtree)).map((f) => [f.survey_id, f]));
  return surveys.map((s) => {
    const f = figures.get(s.id);
    return {
      ...s, responses: f?.responses ?? 0, completed: f?.completed ?? 0,
      nps: f && f.nps_answers > 0 ? Math.round((100 * (f.promoters - f.detractors)) / f.nps_answers) : null,
    };
  });
}

/** The Net Promoter Score of the NPS answers in the principal's subtree since `from`; null without any. */
export async function npsOf(db: Kysely<DB>, principal: Principal, from: string): Promise<number | null> {
  const f = await repo.npsSince(db, principal.subtree, from);
  return f.answers === 0 ? null : Math.round((100 * (f.promoters - f.detractors)) / f.answers);
}

/** The draft surveys owned within the principal's subtree (a dashboard user's, to publish), newest first. */
export async function draftsInReach(db: Kysely<DB>, principal: Principal): Promise<Survey[]> {
  return (await repo.draftSurveysOf(db, principal.accountId, principal.subtree)).map(toSurvey);
}

/**
 * A draft of the standard post-stay survey (templates.ts) owned by a node of the principal's reach,
 * with `primary_language` as its main language (its texts are in all five guest languages).
 */
export async function createTemplateDraft(db: Kysely<DB>, principal: Principal, input: { name: string; node_id: string; primary_language: string }): Promise<SurveyDetail> {
  if (!principal.inSubtree(input.node_id)) throw invalid(NOT_WITHIN_REACH);
  return createSurvey(db, principal.accountId, { ...input, definition: POST_STAY_TEMPLATE, status: 'draft' });
}

/** Publishes a draft owned within the principal's subtree (404 for any other survey). */
export async function publishInReach(db: Kysely<DB>, principal: Principal, id: string): Promise<SurveyDetail> {
  const row = await findAccountSurvey(db, principal.accountId, id);
  if (!row || !principal.inSubtree(row.node_id)) throw notFound('survey');
  return publishSurvey(db, row.id);
}
