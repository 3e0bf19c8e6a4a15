// Imports one non-review line through its module's service (surveys, responses, topics, mentions,
// recommendations): the same rules and events as the admin API, one transaction per record.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { DomainError } from '../lib/errors.ts';
import { createMention, createRecommendation, createTopic } from '../modules/insights/service.ts';
import type { MentionInput, RecommendationInput, TopicInput } from '../modules/insights/schemas.ts';
import { isDataError } from '../modules/reviews/bulk.ts';
import { findAccountReview } from '../modules/reviews/service.ts';
import type { ResponseInput, SurveyInput } from '../modules/surveys/schemas.ts';
import { createResponse, createSurvey, findAccountSurvey } from '../modules/surveys/service.ts';
import { LineError, type ParsedLine, REF_FIELDS, validateBody } from './format.ts';

/** What `ref` names the file has defined so far: kind → name → { id, line }. */
export type Refs = Record<'survey' | 'topic', Map<string, { id: string; line: number }>>;

export const emptyRefs = (): Refs => ({ survey: new Map(), topic: new Map() });

/** Creates the record of a parsed non-review line; throws LineError when it is rejected. */
export async function importRecord(db: Kysely<DB>, refs: Refs, line: ParsedLine, lineNo: number): Promise<void> {
  if (line.ref !== null) {
    const kind = line.type as 'survey' | 'topic';
    const earlier = refs[kind].get(line.ref);
    if (earlier) throw new LineError(`ref "${line.ref}" is already used by the ${kind} of line ${earlier.line}`);
  }
  resolveRefs(refs, line);
  try {
    const id = await create(db, line);
    if (line.ref !== null && id !== null) refs[line.type as 'survey' | 'topic'].set(line.ref, { id, line: lineNo });
  } catch (error) {
    if (error instanceof DomainError) throw new LineError(error.message);
    if (isDataError(error)) throw new LineError(`the database refused the record: ${(error as Error).message}`);
    throw error;
  }
}

function resolveRefs(refs: Refs, line: ParsedLine): void {
  for (const [field, name] of Object.entries(line.refs)) {
    const kind = REF_FIELDS[line.type][field]!;
    const target = refs[kind].get(name);
    if (!target) throw new LineError(`${field} "${name}" names no ${kind} line earlier in this file`);
    if (field === 'survey_ref') line.surveyId = target.id;
    else line.body[field.replace(/_ref$/, '_id')] = target.id;
  }
}

/** Returns the new record's id when later lines may refer to it. */
async function create(db: Kysely<DB>, line: ParsedLine): Promise<string | null> {
  const accountId = line.accountId;
  switch (line.type) {
    case 'survey':
      return (await createSurvey(db, accountId!, validateBody<SurveyInput>('survey', line.body))).id;
    case 'topic':
      return (await createTopic(db, accountId, validateBody<TopicInput>('topic', line.body))).id;
    case 'response': {
      const body = validateBody<ResponseInput>('response', line.body);
      const survey = await findAccountSurvey(db, accountId!, line.surveyId!);
      if (!survey) throw new LineError('survey_id must be a survey of this account');
      await createResponse(db, survey.id, body);
      return null;
    }
    case 'mention': {
      const body = validateBody<MentionInput>('mention', line.body);
      const key = line.review!;
      const review = await findAccountReview(db, accountId!, key);
      if (!review) {
        throw new LineError('id' in key ? 'review_id must be a review of this account'
          : `review ${JSON.stringify(key)} is not a review of this account`);
      }
      await createMention(db, review.id, body);
      return null;
    }
    case 'recommendation':
      await createRecommendation(db, accountId!, validateBody<RecommendationInput>('recommendation', line.body));
      return null;
    case 'review':
      throw new Error('reviews are imported in batches (src/import/run.ts)');
  }
}
