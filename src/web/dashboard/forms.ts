// Reading form bodies (application/x-www-form-urlencoded: a field is a string, or a list when sent
// more than once) and turning a service's refusal into messages shown next to the fields they name. A body
// sent as JSON instead may hold anything: a value that is not a string reads as absent, so a form's
// code only ever meets strings.
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { describeValidation } from '../../http/errors.ts';
import { formValidatorCompiler } from '../../http/validation.ts';
import { DomainError, FieldsInvalid } from '../../lib/errors.ts';
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

/** The refusals to show on a form: beside each field at fault, and above the form for the rest. */
export interface FormFault {
  /** Each faulty field's message, by the field's name. */
  fields: ReadonlyMap<string, string>;
  /** A refusal that names no field of the form, or null. */
  general: string | null;
  /** The status the re-shown form answers with: 409 for a clash with the current state, else 400 (422 unprocessable). */
  status: number;
}

/** The field a service's message names: its first word, "body." dropped. */
const namedField = (message: string): string | null => /^(?:body\.|querystring\.)?([a-z_]+)/.exec(message)?.[1] ?? null;

/**
 * A domain error of a service as the faults to show on the form, in the page's language where the
 * rule is one a person can be told plainly (fault-words.ts); anything else is thrown on (a fault page).
 */
export function formFault(error: unknown, fields: readonly string[], language: string): FormFault {
  if (!(error instanceof DomainError) || error.kind === 'not-found' || error.kind === 'unauthenticated') throw error;
  const status = error.kind === 'conflict' ? 409 : error.kind === 'unprocessable' ? 422 : 400;
  const faults = error instanceof FieldsInvalid ? error.faults : [{ field: namedField(error.message) ?? '', message: error.message }];
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const fault of faults) {
    const words = faultWords(fault.message, language);
    if (fields.includes(fault.field)) byField.set(fault.field, byField.has(fault.field) ? `${byField.get(fault.field)} ${words}` : words);
    else general.push(words);
  }
  return { fields: byField, general: general.length > 0 ? general.join(' ') : null, status };
}

type Checker = ((value: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[1] };
type AjvError = Parameters<typeof describeValidation>[1][number];
/** One checker per schema (schemas are constants; the inbox checks its filter form on every request). */
const checkers = new WeakMap<TSchema, Checker>();

/** The top-level field an error is about: its path's first step, or the property it says is missing or extra. */
function topField(error: AjvError): string {
  const first = error.instancePath.split('/')[1];
  if (first !== undefined) return first.replaceAll('~1', '/').replaceAll('~0', '~');
  const named = error.params.missingProperty ?? error.params.additionalProperty;
  return typeof named === 'string' ? named : '';
}

/**
 * Checks a body built from a form against the API's own TypeBox schema, with the API's rules and
 * messages ("body.name must NOT have more than 120 characters"), finding every fault at once: a form
 * with two wrong fields shows both.
 */
export function checkBody<T>(schema: TSchema, body: Record<string, unknown>): T {
  let check = checkers.get(schema);
  if (check === undefined) {
    check = formValidatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/form' }) as unknown as Checker;
    checkers.set(schema, check);
  }
  if (check(body)) return body as T;
  const errors = check.errors ?? [];
  const byField = new Map<string, AjvError[]>();
  for (const error of errors) {
    const name = topField(error);
    byField.set(name, [...(byField.get(name) ?? []), error]);
  }
  throw new FieldsInvalid([...byField].map(([name, group]) => ({ field: name, message: describeValidation('body', group) })));
}
