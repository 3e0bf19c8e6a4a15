// Reading form bodies (application/x-www-form-urlencoded: a field is a string, or a list when sent
// more than once) and turning a service's refusal into a message shown next to its field. A body
// sent as JSON instead may hold anything: a value that is not a string reads as absent, so a form's
// code only ever meets strings.
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { describeValidation } from '../../http/errors.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { DomainError, invalid } from '../../lib/errors.ts';
import { faultWords } from './fault-words.ts';

const sentValue = (request: FastifyRequest, name: string): unknown => {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
};

/** The field's value (the first when sent twice), '' when absent or not text. */
export function field(request: FastifyRequest, name: string): string {
  const value = sentValue(request, name);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every value of a field sent once per ticked checkbox (values that are not text left out). */
export function fieldList(request: FastifyRequest, name: string): string[] {
  const value = sentValue(request, name);
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** A refusal to show on the form: the field it names (the message's first word, body. dropped) and the message. */
export interface FormFault {
  field: string | null;
  message: string;
  /** The status the re-shown form answers with: 409 for a clash with the current state, else 400. */
  status: number;
}

/**
 * A domain error of a service as a form fault, its message in the page's language where it is a
 * rule a person can be told plainly (fault-words.ts); anything else is thrown on (a fault page).
 */
export function formFault(error: unknown, fields: readonly string[], language: string): FormFault {
  if (!(error instanceof DomainError) || error.kind === 'not-found' || error.kind === 'unauthenticated') throw error;
  const named = /^(?:body\.|querystring\.)?([a-z_]+)/.exec(error.message)?.[1] ?? null;
  const field = named !== null && fields.includes(named) ? named : null;
  return { field, message: faultWords(error.message, language), status: error.kind === 'conflict' ? 409 : error.kind === 'unprocessable' ? 422 : 400 };
}

/**
 * Checks a body built from a form against the API's own TypeBox schema, with the API's validator:
 * the same rules and the same messages ("body.name must NOT have more than 120 characters").
 */
type Checker = ((value: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[1] };
/** One checker per schema (schemas are constants; the inbox checks its filter form on every request). */
const checkers = new WeakMap<TSchema, Checker>();

export function checkBody<T>(schema: TSchema, body: Record<string, unknown>): T {
  let check = checkers.get(schema);
  if (check === undefined) {
    check = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/form' }) as unknown as Checker;
    checkers.set(schema, check);
  }
  if (check(body)) return body as T;
  throw invalid(describeValidation('body', check.errors ?? []));
}
