// The NDJSON line format of `repute import`: an envelope (type, account_id, ref, external_id, *_ref, the parent's
// id or key) around the admin body of operator.md, validated with the module's own TypeBox schema.
import type { TSchema } from 'typebox';
import { describeValidation } from '../http/errors.ts';
import { validatorCompiler } from '../http/validation.ts';
import { isUuid } from '../lib/ids.ts';
import { MentionInput, RecommendationInput, TopicInput } from '../modules/insights/schemas.ts';
import { ReviewInput } from '../modules/reviews/schemas.ts';
import { ResponseInput, SurveyInput } from '../modules/surveys/schemas.ts';

export const RECORD_TYPES = ['review', 'survey', 'response', 'topic', 'mention', 'recommendation'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** A line that cannot be imported; the message says why (field and rule). `type`: the line's, once known. */
export class LineError extends Error {
  constructor(message: string, readonly type: RecordType | null = null) {
    super(message);
  }
}

/** Which `<field>_ref` keys a type accepts instead of `<field>_id`, and what kind of ref each names. */
export const REF_FIELDS: Record<RecordType, Record<string, 'survey' | 'topic'>> = {
  review: {},
  survey: {},
  response: { survey_ref: 'survey' },
  topic: { parent_label_ref: 'topic' },
  mention: { canonical_label_ref: 'topic', custom_category_ref: 'topic' },
  recommendation: { canonical_label_ref: 'topic' },
};

/** Lines of these types may name themselves with `ref`, for later lines of the same file. */
const REFERABLE: ReadonlySet<RecordType> = new Set(['survey', 'topic']);

const SCHEMAS: Record<RecordType, TSchema> = {
  review: ReviewInput, survey: SurveyInput, response: ResponseInput, topic: TopicInput, mention: MentionInput, recommendation: RecommendationInput,
};

type Validator = ((value: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[1] | null };
const validators = new Map<RecordType, Validator>();

/** The HTTP body validator itself (strict: no coercion, unknown fields refused), so a line passes exactly when the admin body would. */
function validatorOf(type: RecordType): Validator {
  let validate = validators.get(type);
  if (!validate) {
    validate = validatorCompiler({ schema: SCHEMAS[type], httpPart: 'body', method: 'POST', url: '/import' }) as unknown as Validator;
    validators.set(type, validate);
  }
  return validate;
}

export interface ParsedLine {
  type: RecordType;
  /** null only for a global topic. */
  accountId: string | null;
  /** The name later lines use for this survey or topic. */
  ref: string | null;
  /** Non-review lines: the record's identity in the source system (src/import/identity.ts); reviews have theirs in the body. */
  externalId: string | null;
  /** `<field>_ref` → the ref it names (resolved by the importer into `<field>_id`). */
  refs: Record<string, string>;
  /** response: the survey's id (or survey_ref in refs). */
  surveyId: string | null;
  /** mention: the review's id, or its (platform, external_id). */
  review: { id: string } | { platform: string; external_id: string } | null;
  /** The admin body, not yet validated (refs are resolved first). */
  body: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses one line into its envelope and body; throws LineError. */
export function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LineError(`not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new LineError('a line must be one JSON object');
  const { type, account_id: accountId, ref, ...rest } = value;
  if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
    throw new LineError(`type must be one of: ${RECORD_TYPES.join(', ')}`);
  }
  const recordType = type as RecordType;
  try {
    return parseEnvelope(recordType, accountId, ref, rest);
  } catch (error) {
    throw error instanceof LineError ? new LineError(error.message, recordType) : error;
  }
}

function parseEnvelope(recordType: RecordType, accountId: unknown, ref: unknown, rest: Record<string, unknown>): ParsedLine {
  if (recordType === 'topic' ? accountId != null && !isUuid(accountId) : !isUuid(accountId)) {
    throw new LineError(recordType === 'topic' ? 'account_id must be a UUID, or null for a global topic' : 'account_id must be a UUID');
  }
  if (ref !== undefined) {
    if (!REFERABLE.has(recordType)) throw new LineError(`ref is only for ${[...REFERABLE].join(' and ')} lines`);
    if (typeof ref !== 'string' || ref.length === 0 || ref.length > 200) throw new LineError('ref must be a string of 1 to 200 characters');
  }
  let externalId: string | null = null;
  if (recordType !== 'review' && 'external_id' in rest) {
    const value = rest.external_id;
    delete rest.external_id;
    if (value !== null && (typeof value !== 'string' || value.length === 0 || value.length > 200)) {
      throw new LineError('external_id must be a string of 1 to 200 characters');
    }
    externalId = value;
  }
  const refs: Record<string, string> = {};
  for (const field of Object.keys(REF_FIELDS[recordType])) {
    if (!(field in rest)) continue;
    const name = rest[field];
    delete rest[field];
    if (typeof name !== 'string' || name.length === 0) throw new LineError(`${field} must be a non-empty string`);
    const idField = field.replace(/_ref$/, '_id');
    if (rest[idField] != null) throw new LineError(`give ${idField} or ${field}, not both`);
    refs[field] = name;
  }
  let surveyId: string | null = null;
  let review: ParsedLine['review'] = null;
  if (recordType === 'response') {
    const { survey_id: id } = rest;
    delete rest.survey_id;
    if (id != null && !isUuid(id)) throw new LineError('survey_id must be a UUID');
    if ((id == null) === (refs.survey_ref === undefined)) throw new LineError('a response needs survey_id or survey_ref (exactly one)');
    surveyId = (id as string | undefined) ?? null;
  }
  if (recordType === 'mention') {
    const { review_id: id, review: key } = rest;
    delete rest.review_id;
    delete rest.review;
    if ((id == null) === (key == null)) throw new LineError('a mention needs review_id or review: { platform, external_id } (exactly one)');
    if (id != null) {
      if (!isUuid(id)) throw new LineError('review_id must be a UUID');
      review = { id };
    } else {
      if (!isObject(key) || typeof key.platform !== 'string' || typeof key.external_id !== 'string' || Object.keys(key).length !== 2) {
        throw new LineError('review must be { "platform": string, "external_id": string }');
      }
      review = { platform: key.platform, external_id: key.external_id };
    }
  }
  return { type: recordType, accountId: (accountId as string | null | undefined) ?? null, ref: (ref as string | undefined) ?? null, externalId, refs, surveyId, review, body: rest };
}

/** Validates a body with the type's admin schema (defaults applied in place); throws LineError naming the field. */
export function validateBody<T>(type: RecordType, body: Record<string, unknown>): T {
  const validate = validatorOf(type);
  if (!validate(body)) throw new LineError(describeValidation(type, validate.errors ?? []));
  return body as T;
}
