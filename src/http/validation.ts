// Request validation: bodies are validated strictly (no type coercion, unknown fields rejected, so a
// client's mistake is reported rather than guessed at); query strings and path params are coerced
// from text, since that is all they can be. No part of a request may carry a NUL character: no
// field has a use for one and PostgreSQL cannot store it in text, so it is refused here as a 400.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options): Ajv {
  // addUsedSchema: false keeps compiled schemas out of Ajv's registry, so two routes whose schemas
  // carry the same $id (a shared TypeBox type, or two modules' "Survey") do not collide at start-up.
  const ajv = new Ajv({ allErrors: false, strict: false, useDefaults: true, removeAdditional: false, addUsedSchema: false, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: 'array' });

/** JSON pointer of the first string (value or key) holding U+0000, or null. Iterative: bodies may nest deeply. */
function findNul(data: unknown): string | null {
  const stack: [unknown, string][] = [[data, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (key.includes('\u0000')) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}

interface ValidateFn {
  (data: unknown): boolean;
  errors?: unknown;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strict : coercing).compile(schema as object);
  const checked: ValidateFn = (data) => {
    const nul = findNul(data);
    if (nul !== null) {
      checked.errors = [{ instancePath: nul, keyword: 'nul', message: 'must not contain the NUL character (\\u0000)', params: {} }];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  return checked as ReturnType<FastifySchemaCompiler<unknown>>;
};
