// Imports one non-review line through its module's service (surveys, responses, topics, mentions,
// recommendations): the same rules and events as the admin API, one transaction per record, each
// record created once: a line whose identity (src/import/identity.ts) was imported before is left as it is.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/errors.ts';
import type { DB } from '../db/schema.ts';
import { DomainError } from '../lib/errors.ts';
import { createMention, createRecommendation, createTopic } from '../modules/insights/service.ts';
import type { MentionInput, RecommendationInput, TopicInput } from '../modules/insights/schemas.ts';
import { isDataError } from '../modules/reviews/bulk.ts';
import { findAccountReview } from '../modules/reviews/service.ts';
import type { ResponseInput, SurveyInput } from '../modules/surveys/schemas.ts';
import { createResponse, createSurvey, findAccountSurvey } from '../modules/surveys/service.ts';
import { LineError, type ParsedLine, REF_FIELDS, validateBody } from './format.ts';
import { type IdentifiedType, importKey as identityOf } from './identity.ts';
import { findImported } from './repository.ts';

/** What `ref` names the file has defined so far: kind → name → { id, line }. */
export type Refs = Record<'survey' | 'topic', Map<string, { id: string; line: number }>>;

export const emptyRefs = (): Refs => ({ survey: new Map(), topic: new Map() });

/** What became of a non-review line: its record was created, or a previous run had imported it. */
export type RecordOutcome = 'created' | 'unchanged';

/** Creates the record of a parsed non-review line unless it exists (by identity); throws LineError when it is rejected. */
export async function importRecord(db: Kysely<DB>, refs: Refs, line: ParsedLine, lineNo: number): Promise<RecordOutcome> {
  if (line.ref !== null) {
    const kind = line.type as 'survey' | 'topic';
    const earlier = refs[kind].get(line.ref);
    if (earlier) throw new LineError(`ref "${line.ref}" is already used by the ${kind} of line ${earlier.line}`);
  }
  resolveRefs(refs, line);
  try {
    const { id, outcome } = await write(db, line);
    if (line.ref !== null) refs[line.type as 'survey' | 'topic'].set(line.ref, { id, line: lineNo });
    return outcome;
  } catch (error) {
    const reason = lineFault(error);
    if (reason === null) throw error;
    throw new LineError(reason);
  }
}

/** Why an error is the line's fault (the line is rejected for it), or null when it is the database's (the import stops). */
export function lineFault(error: unknown): string | null {
  if (error instanceof LineError) return error.message;
  if (error instanceof DomainError) return error.message;
  // A value the schema let through but that is no instant (e.g. a leap second): it throws when converted.
  if (error instanceof RangeError) return error.message;
  if (isDataError(error)) return `the database refused the record: ${(error as Error).message}`;
  return null;
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

/** Validates the line, then finds its record by identity or creates it with that identity. */
async function write(db: Kysely<DB>, line: ParsedLine): Promise<{ id: string; outcome: RecordOutcome }> {
  const accountId = line.accountId;
  const type = line.type;
  if (type === 'review') throw new Error('reviews are imported in batches (src/import/run.ts)');
  const body = validateBody<Record<string, unknown>>(type, line.body);
  let parentId: string | null = null;
  if (type === 'response') {
    const survey = await findAccountSurvey(db, accountId!, line.surveyId!);
    if (!survey) throw new LineError('survey_id must be a survey of this account');
    parentId = survey.id;
  } else if (type === 'mention') {
    const key = line.review!;
    const review = await findAccountReview(db, accountId!, key);
    if (!review) {
      throw new LineError('id' in key ? 'review_id must be a review of this account'
        : `review ${JSON.stringify(key)} is not a review of this account`);
    }
    parentId = review.id;
  }
  const importKey = identityOf(line, parentId, body);
  const existing = await findImported(db, type, importKey);
  if (existing !== undefined) return { id: existing, outcome: 'unchanged' };
  try {
    return { id: await create(db, type, accountId, parentId, body, importKey), outcome: 'created' };
  } catch (error) {
    // Another import of the same record committed first.
    const winner = isUniqueViolation(error) ? await findImported(db, type, importKey) : undefined;
    if (winner === undefined) throw error;
    return { id: winner, outcome: 'unchanged' };
  }
}

async function create(db: Kysely<DB>, type: IdentifiedType, accountId: string | null, parentId: string | null,
  body: Record<string, unknown>, importKey: string): Promise<string> {
  switch (type) {
    case 'survey': return (await createSurvey(db, accountId!, body as unknown as SurveyInput, importKey)).id;
    case 'topic': return (await createTopic(db, accountId, body as unknown as TopicInput, importKey)).id;
    case 'response': return (await createResponse(db, parentId!, body as unknown as ResponseInput, importKey)).id;
    case 'mention': return (await createMention(db, parentId!, body as unknown as MentionInput, importKey)).id;
    case 'recommendation': return (await createRecommendation(db, accountId!, body as unknown as RecommendationInput, importKey)).id;
  }
}
