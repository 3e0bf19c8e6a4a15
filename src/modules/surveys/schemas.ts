// TypeBox schemas of surveys: the public Survey, SurveyDetail, SurveyResponse, SurveyAnswer, and the
// operator's survey/response bodies (also used by the NDJSON importer).
import { Type, type Static } from 'typebox';
import { DateTime, FiniteNumber, Nullable, Uuid } from '../../http/schemas.ts';

const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
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

export const ResponseIdParams = Type.Object({ id: Type.String(), responseId: Type.String() });

// ---- operator bodies ----

export const SurveyInput = Type.Object({
  node_id: Uuid,
  name: Text(500),
  definition: AnyObject,
  status: Type.Union([Type.Literal('draft'), Type.Literal('published')]),
  description: Opt(Type.String({ maxLength: 10_000 })),
  primary_language: Opt(Text(35)),
  created_at: Opt(DateTime),
  published_at: Opt(DateTime),
}, { additionalProperties: false });
export type SurveyInput = Static<typeof SurveyInput>;

export const AnswerInput = Type.Object({
  question_id: Text(200),
  question_path: Opt(Text(1000)),
  question_type: Text(100),
  value: Type.Unknown({ description: 'any JSON value' }),
  numeric_value: Opt(FiniteNumber()),
  comment: Opt(Type.String({ maxLength: 100_000 })),
  answered_at: Opt(DateTime),
}, { additionalProperties: false });
export type AnswerInput = Static<typeof AnswerInput>;

export const ResponseInput = Type.Object({
  node_id: Uuid,
  channel: Text(100),
  status: Type.Union([Type.Literal('started'), Type.Literal('completed')]),
  overall_score: Opt(FiniteNumber()),
  started_at: Opt(DateTime),
  completed_at: Opt(DateTime),
  respondent_email: Opt(Type.String({ maxLength: 320 })),
  context: Opt(AnyObject),
  token: Opt(Text(500)),
  answers: Opt(Type.Array(AnswerInput, { maxItems: 1000 })),
}, { additionalProperties: false });
export type ResponseInput = Static<typeof ResponseInput>;

export const CompleteInput = Type.Object({ completed_at: Opt(DateTime) }, { additionalProperties: false });

export const ResponseCreated = Type.Object({ id: Uuid, answer_ids: Type.Array(Uuid) });
export type ResponseCreated = Static<typeof ResponseCreated>;
