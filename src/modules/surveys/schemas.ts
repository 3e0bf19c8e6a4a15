// TypeBox schemas of surveys: the public Survey, SurveyDetail, SurveyResponse, SurveyAnswer, and the
// operator's survey/response bodies (also used by the NDJSON importer).
import { Type, type Static } from 'typebox';
import { DateTime, FiniteNumber, NonEmptyString, Nullable, OptionalNullable, PageQuery, Uuid } from '../../http/schemas.ts';

/** A JSON object of any content (survey definitions, personalisation context). */
const AnyObject = Type.Object({}, { additionalProperties: true });

export const Survey = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  node_id: Uuid,
  status: Type.String(),
  primary_language: Type.String(),
  published_at: Nullable(DateTime),
  created_at: DateTime,
}, { $id: 'Survey' });
export type Survey = Static<typeof Survey>;

export const SurveyDetail = Type.Object({
  ...Survey.properties,
  // Null only for a draft, which the public API never shows.
  published_definition: Nullable(Type.Object({}, { additionalProperties: true, description: 'the published pages and questions' })),
}, { $id: 'SurveyDetail' });
export type SurveyDetail = Static<typeof SurveyDetail>;

export const SurveyResponse = Type.Object({
  id: Uuid,
  survey_id: Uuid,
  node_id: Uuid,
  status: Type.String(),
  channel: Type.String(),
  overall_score: Nullable(Type.Number()),
  started_at: DateTime,
  completed_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: Type.String({ format: 'date-time', description: 'the change stamp of its last change (completion): the sync order' }),
}, { $id: 'SurveyResponse' });
export type SurveyResponse = Static<typeof SurveyResponse>;

export const SurveyAnswer = Type.Object({
  id: Uuid,
  question_id: Type.String(),
  question_path: Type.String(),
  question_type: Type.String(),
  value: Type.Unknown({ description: 'any JSON value; its shape depends on question_type' }),
  numeric_value: Nullable(Type.Number()),
  comment: Nullable(Type.String()),
  answered_at: DateTime,
}, { $id: 'SurveyAnswer' });
export type SurveyAnswer = Static<typeof SurveyAnswer>;

export const ResponseListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Union([Type.Literal('started'), Type.Literal('completed')])),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created_at (when it was started) at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created_at before (exclusive)' })),
  sort: Type.Optional(Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')], {
    description: 'created_at (default): newest first; updated_at: oldest change first, for incremental sync',
  })),
  updated_since: Type.Optional(Type.String({ format: 'date-time', description: 'with sort=updated_at: changes at or after this instant' })),
}, { additionalProperties: false });
export type ResponseListQuery = Static<typeof ResponseListQuery>;

export const ResponseIdParams = Type.Object({ id: Type.String(), responseId: Type.String() });

// ---- operator bodies ----

export const SurveyInput = Type.Object({
  node_id: Uuid,
  name: NonEmptyString(500),
  definition: AnyObject,
  status: Type.Union([Type.Literal('draft'), Type.Literal('published')]),
  description: OptionalNullable(Type.String({ maxLength: 10_000 })),
  primary_language: OptionalNullable(NonEmptyString(35)),
  created_at: OptionalNullable(DateTime),
  published_at: OptionalNullable(DateTime),
}, { additionalProperties: false });
export type SurveyInput = Static<typeof SurveyInput>;

export const AnswerInput = Type.Object({
  question_id: NonEmptyString(200),
  question_path: OptionalNullable(NonEmptyString(1000)),
  question_type: NonEmptyString(100),
  value: Type.Unknown({ description: 'any JSON value' }),
  numeric_value: OptionalNullable(FiniteNumber()),
  comment: OptionalNullable(Type.String({ maxLength: 100_000 })),
  answered_at: OptionalNullable(DateTime),
}, { additionalProperties: false });
export type AnswerInput = Static<typeof AnswerInput>;

export const ResponseInput = Type.Object({
  node_id: Uuid,
  channel: NonEmptyString(100),
  status: Type.Union([Type.Literal('started'), Type.Literal('completed')]),
  overall_score: OptionalNullable(FiniteNumber()),
  started_at: OptionalNullable(DateTime),
  completed_at: OptionalNullable(DateTime),
  respondent_email: OptionalNullable(Type.String({ maxLength: 320 })),
  context: OptionalNullable(AnyObject),
  token: OptionalNullable(NonEmptyString(500)),
  answers: OptionalNullable(Type.Array(AnswerInput, { maxItems: 1000 })),
}, { additionalProperties: false });
export type ResponseInput = Static<typeof ResponseInput>;

export const CompleteInput = Type.Object({ completed_at: OptionalNullable(DateTime) }, { additionalProperties: false });

export const ResponseCreated = Type.Object({ id: Uuid, answer_ids: Type.Array(Uuid) });
export type ResponseCreated = Static<typeof ResponseCreated>;
