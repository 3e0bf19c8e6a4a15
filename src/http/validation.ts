// Request validation: bodies are validated strictly (no type coercion, unknown fields rejected, so a
// client's mistake is reported rather than guessed at); query strings and path params are coerced
// from text, since that is all they can be, but an integer only from plain decimal digits ("16",
// never "0x10", "+16", " 16", "16.0" or "016"), and a number likewise ("4.5", never " ",
// "Infinity" or "1e3"); UUIDs are lower-cased first. No part of a request may carry a NUL character (no
// field has a use for one and PostgreSQL cannot store it in text), a string that is not well-formed
// Unicode (a lone surrogate such as "\ud800": PostgreSQL refuses it, so one stored on SQLite or in a
// JSON column breaks later reads) or a number that is not finite (1e309 parses as Infinity): each
// is refused here, once for every route and for `repute import`, as a 400 naming the field; so is
// a value nested deeper than MAX_DEPTH (free-form JSON such as a survey answer's value would
// otherwise reach JSON.stringify, which overflows the stack a few thousand levels down).
// "date-time" is src/lib/instant.ts's definition: a real instant between 1970 and 9999.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { INSTANT_RULE, isInstant } from '../lib/instant.ts';

function makeAjv(options: Options): Ajv {
  // addUsedSchema: false keeps compiled schemas out of Ajv's registry, so two routes whose schemas
  // carry the same $id (a shared TypeBox type, or two modules' "Survey") do not collide at start-up.
  // strictNumbers: Infinity and NaN are not of type number (strict: false would let them through).
  const ajv = new Ajv({ allErrors: false, strict: false, strictNumbers: true, useDefaults: true, removeAdditional: false, addUsedSchema: false, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isInstant });
  return ajv;
}

const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: 'array' });
/** Bodies built from a dashboard form: the same rules, every fault found, so each field shows its own. */
const everyFault = makeAjv({ coerceTypes: false, allErrors: true });

interface AjvError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

// String.prototype.isWellFormed is in Node 20 but not in this TypeScript lib (es2024).
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** What no string of a request may be, and why. */
function textFault(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!isWellFormed(text)) return 'must be well-formed Unicode (it holds a lone surrogate such as \\ud800)';
  return null;
}

/** How deep a request's objects and arrays may nest: far beyond any real document. */
export const MAX_DEPTH = 100;

/** An object still to look into, and where it sits: its JSON pointer is only spelled out for a fault. */
interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string;
  /** Objects and arrays from the root to this one, itself included. */
  depth: number;
}

const pointerOf = (visit: Visit): string =>
  visit.parent === null ? '' : `${pointerOf(visit.parent)}/${visit.key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** What no single value of a request may be, and why (objects and arrays are looked into instead). */
function valueFault(value: unknown): string | null {
  if (typeof value === 'string') return textFault(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return 'must be a finite number';
  return null;
}

/**
 * The first string (value or key) that is not storable text, or number that is not finite, as an
 * Ajv-style error at its JSON pointer; null when there is none. Iterative: bodies may nest deeply.
 * Every request passes through here, nearly always clean, so only objects are kept to visit (a query
 * string's flat values are checked where they are met) and no path is built until there is a fault.
 */
export function findUnstorable(data: unknown): AjvError | null {
  const fault = (at: Visit, message: string): AjvError => ({ instancePath: pointerOf(at), keyword: 'text', message, params: {} });
  const root: Visit = { value: data, parent: null, key: '', depth: 1 };
  const rootFault = valueFault(data);
  if (rootFault !== null) return fault(root, rootFault);
  if (data === null || typeof data !== 'object') return null;
  const stack: Visit[] = [root];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const object = visit.value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const value = object[key];
      const keyFault = textFault(key);
      const depth = visit.depth + 1;
      if (keyFault !== null) return fault({ value, parent: visit, key, depth }, `(a key) ${keyFault}`);
      const why = valueFault(value);
      if (why !== null) return fault({ value, parent: visit, key, depth }, why);
      if (value !== null && typeof value === 'object') {
        if (depth > MAX_DEPTH) return fault({ value, parent: visit, key, depth }, `must not nest objects and arrays more than ${MAX_DEPTH} levels deep`);
        stack.push({ value, parent: visit, key, depth });
      }
    }
  }
  return null;
}

const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;
/** A decimal number as people write one: "4", "4.5", "-0.25" (no spaces, no "Infinity", no "0x1"). */
const PLAIN_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** How a query or path property declared as a number must be written to be coerced. */
interface NumberRule {
  name: string;
  pattern: RegExp;
  message: string;
}

/**
 * Query and path properties declared as integers or numbers: coerced only from plain decimal
 * writing (Ajv alone reads " " as 0 and "Infinity" as a number past every maximum).
 */
function numberRules(schema: unknown): NumberRule[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).flatMap(([name, p]): NumberRule[] => {
    if (p.type === 'integer') return [{ name, pattern: PLAIN_INTEGER, message: 'must be an integer written in plain decimal digits' }];
    if (p.type === 'number') return [{ name, pattern: PLAIN_NUMBER, message: 'must be a number written in plain decimal digits (such as 4 or 4.5)' }];
    return [];
  });
}

function notPlainNumber(data: unknown, rules: NumberRule[]): AjvError | null {
  if (data === null || typeof data !== 'object') return null;
  for (const { name, pattern, message } of rules) {
    const value = (data as Record<string, unknown>)[name];
    for (const one of Array.isArray(value) ? value : [value]) {
      if (typeof one === 'string' && !pattern.test(one)) return { instancePath: `/${name}`, keyword: 'type', message, params: {} };
    }
  }
  return null;
}

/** Ajv's own words where ours say more. */
const explain = (errors: AjvError[] | null | undefined): AjvError[] | null | undefined =>
  errors?.map((e) => (e.keyword === 'format' && e.params.format === 'date-time' ? { ...e, message: `must be ${INSTANT_RULE}` } : e));

type PropertySchema = { format?: unknown; anyOf?: PropertySchema[]; type?: unknown; items?: PropertySchema };

const isUuidSchema = (p: PropertySchema | undefined): boolean =>
  p !== undefined && (p.format === 'uuid' || (p.anyOf ?? []).some(isUuidSchema));

/**
 * Top-level properties that hold a UUID (or a list of them): ids are stored in lower case, and a
 * UUID's hex digits mean the same in either case (RFC 9562), so an id written in capitals is
 * lower-cased before validation rather than answered 404 as unknown.
 */
function uuidProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
  return Object.entries(properties).filter(([, p]) => isUuidSchema(p) || isUuidSchema(p.items)).map(([name]) => name);
}

const HAS_CAPITAL = /[A-F]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Path ids are plain strings (a malformed one is a 404, as any unknown id): each that reads as a UUID
 * and has a capital is lower-cased. In place, with nothing allocated: every request with an id passes here.
 */
function lowerCaseUuidParams(data: unknown): void {
  if (data === null || typeof data !== 'object') return;
  const params = data as Record<string, unknown>;
  for (const name in params) {
    const value = params[name];
    if (typeof value === 'string' && HAS_CAPITAL.test(value) && UUID.test(value)) params[name] = value.toLowerCase();
  }
}

function lowerCaseUuids(data: unknown, names: string[]): void {
  if (names.length === 0 || data === null || typeof data !== 'object') return;
  const object = data as Record<string, unknown>;
  for (const name of names) {
    const value = object[name];
    if (typeof value === 'string') {
      if (HAS_CAPITAL.test(value)) object[name] = value.toLowerCase();
    } else if (Array.isArray(value)) {
      object[name] = value.map((one) => (typeof one === 'string' && HAS_CAPITAL.test(one) ? one.toLowerCase() : one));
    }
  }
}

interface ValidateFn {
  (data: unknown): boolean;
  errors?: unknown;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compileWith(httpPart === 'body' ? strict : coercing, schema, httpPart);

/** A body's validator that reports every fault, not only the first (the dashboard's forms). */
export const formValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) => compileWith(everyFault, schema, 'body');

function compileWith(ajv: Ajv, schema: unknown, httpPart: string | undefined): ReturnType<FastifySchemaCompiler<unknown>> {
  const validate = ajv.compile(schema as object);
  const numbers = httpPart === 'body' ? [] : numberRules(schema);
  const uuids = httpPart === 'params' ? [] : uuidProperties(schema);
  const checked: ValidateFn = (data) => {
    const fault = findUnstorable(data) ?? notPlainNumber(data, numbers);
    if (fault !== null) {
      checked.errors = [fault];
      return false;
    }
    if (httpPart === 'params') lowerCaseUuidParams(data);
    else lowerCaseUuids(data, uuids);
    const valid = validate(data);
    checked.errors = explain(validate.errors as AjvError[] | null | undefined);
    return valid;
  };
  return checked as ReturnType<FastifySchemaCompiler<unknown>>;
}
