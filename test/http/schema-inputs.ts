// Inputs derived from route schemas (JSON Schema, as TypeBox writes it): a plausible valid value for
// any schema, and the malformed values the no-5xx battery sends in every position.
import { randomUUID } from 'node:crypto';

export type Schema = Record<string, any>;

/** A raw JSON token that JSON.stringify cannot write (1e400 parses to Infinity). */
export class Raw {
  constructor(readonly text: string) {}
}

export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `__raw_${raws.length - 1}__`;
    }
    return v;
  });
  return (text ?? 'null').replace(/"__raw_(\d+)__"/g, (_m, i: string) => raws[Number(i)]!);
}

/** Picks an id for a uuid field by its name; the caller knows which ids exist. */
export type IdFor = (name: string) => string;

const typeOf = (schema: Schema): string | undefined => {
  if (Array.isArray(schema.type)) return schema.type.find((t: string) => t !== 'null');
  return schema.type;
};

const STRING_GUESSES = ['x', 'en', 'property', 'DE', 'abc', 'ab', 'a1', 'A', '1', 'booked', 'en-GB'];

function stringFor(schema: Schema, name: string, idFor: IdFor): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const fits = (s: string) => s.length >= min && s.length <= max && (!schema.pattern || new RegExp(schema.pattern, 'u').test(s));
  switch (schema.format) {
    case 'uuid': return idFor(name);
    case 'date-time': return '2026-01-15T10:00:00.000Z';
    case 'date': return '2026-01-15';
    case 'email': return `guest-${randomUUID().slice(0, 8)}@example.com`;
    case 'uri': case 'url': return 'https://example.com/hook';
  }
  if (name === 'scopes' && fits('reviews:read')) return 'reviews:read';
  if (/email/.test(name) && fits('guest@example.com')) return `guest-${randomUUID().slice(0, 8)}@example.com`;
  if (/url/.test(name) && fits('https://example.com/hook')) return 'https://example.com/hook';
  if (/country/.test(name) && fits('DE')) return 'DE';
  if (/language/.test(name) && fits('en')) return 'en';
  if (/(^|_)(at|date|check_in|check_out)$|check_in|check_out/.test(name) && fits('2026-01-15')) return '2026-01-15';
  const guess = STRING_GUESSES.find(fits);
  if (guess !== undefined) return guess;
  return 'x'.repeat(Math.max(1, min));
}

/** A value the schema accepts (as far as a generator without a regex engine can tell). */
export function validValue(schema: Schema | undefined, name: string, idFor: IdFor, full = true): unknown {
  if (!schema) return 'x';
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      const branch = schema[key].find((s: Schema) => s.type !== 'null') ?? schema[key][0];
      return validValue(branch, name, idFor, full);
    }
  }
  if (Array.isArray(schema.allOf)) return validValue(Object.assign({}, ...schema.allOf), name, idFor, full);
  switch (typeOf(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
        if (full || required.has(key)) out[key] = validValue(sub, key, idFor, full);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems ?? 1);
      return Array.from({ length: n }, (_, i) => {
        const v = validValue(schema.items, name, idFor, full);
        return typeof v === 'string' && schema.uniqueItems && i > 0 ? `${v}${i}` : v;
      });
    }
    case 'string': return stringFor(schema, name, idFor);
    case 'integer': return Math.ceil(schema.minimum ?? (schema.maximum !== undefined ? Math.min(1, schema.maximum) : 1));
    case 'number': return schema.minimum ?? (schema.maximum !== undefined ? Math.min(1, schema.maximum) : 1);
    case 'boolean': return true;
    case 'null': return null;
    default: return 'x';
  }
}

/** Every property path of a body schema, nested objects and the first item of object arrays included (depth 3). */
export function fieldPaths(schema: Schema | undefined, prefix: (string | number)[] = [], depth = 0): { path: (string | number)[]; schema: Schema }[] {
  if (!schema || depth > 2) return [];
  const branch = (s: Schema): Schema => (s.anyOf ?? s.oneOf)?.find((b: Schema) => b.type !== 'null') ?? s;
  const out: { path: (string | number)[]; schema: Schema }[] = [];
  for (const [key, raw] of Object.entries<Schema>(branch(schema).properties ?? {})) {
    const sub = branch(raw);
    out.push({ path: [...prefix, key], schema: raw });
    if (typeOf(sub) === 'object') out.push(...fieldPaths(sub, [...prefix, key], depth + 1));
    if (typeOf(sub) === 'array' && sub.items && typeOf(branch(sub.items)) === 'object') out.push(...fieldPaths(sub.items, [...prefix, key, 0], depth + 1));
  }
  return out;
}

function deepNest(levels: number): unknown {
  return new Raw('['.repeat(levels) + ']'.repeat(levels));
}

/** Wrong types, edge numbers, hostile strings and odd shapes for one field, plus its schema's own limits. */
export function malformedValues(schema: Schema): { label: string; value: unknown }[] {
  const values: { label: string; value: unknown }[] = [
    { label: 'null', value: null }, { label: 'true', value: true }, { label: '0', value: 0 }, { label: '-1', value: -1 },
    { label: '1.5', value: 1.5 }, { label: '1e308', value: 1e308 }, { label: '-1e308', value: -1e308 },
    { label: '1e400 (Infinity)', value: new Raw('1e400') }, { label: '2^53+1', value: new Raw('9007199254740993') },
    { label: 'empty string', value: '' }, { label: 'blank', value: '   ' }, { label: 'NUL', value: 'a\u0000b' },
    { label: 'lone surrogate', value: new Raw('"\\ud800"') }, { label: 'unicode', value: 'Ünïcødé 😀 ‮עברית' },
    { label: 'SQL', value: "'; DROP TABLE reviews; --" }, { label: '200k chars', value: 'x'.repeat(200_000) },
    { label: 'not-a-uuid', value: 'not-a-uuid' }, { label: 'random uuid', value: randomUUID() },
    { label: 'bad date', value: '2026-02-30T25:61:00Z' }, { label: 'year 0', value: '0000-01-01T00:00:00Z' },
    { label: 'year 9999', value: '9999-12-31T23:59:59.999Z' }, { label: 'offset date', value: '2026-01-01T00:00:00+14:00' },
    { label: 'date only', value: '2026-01-01' }, { label: 'object', value: { a: 1 } }, { label: 'empty object', value: {} },
    { label: 'operator object', value: { $gt: '' } }, { label: 'array', value: ['x'] }, { label: 'empty array', value: [] },
    { label: 'array of null', value: [null] }, { label: '5000-deep nesting', value: deepNest(5000) },
  ];
  const s = (schema.anyOf ?? schema.oneOf)?.find((b: Schema) => b.type !== 'null') ?? schema;
  if (typeof s.maxLength === 'number') {
    values.push({ label: `maxLength ${s.maxLength}`, value: 'é'.repeat(s.maxLength) }, { label: `maxLength+1`, value: 'x'.repeat(s.maxLength + 1) });
  }
  if (typeof s.minLength === 'number' && s.minLength > 0) values.push({ label: 'minLength-1', value: 'x'.repeat(s.minLength - 1) });
  if (typeof s.maximum === 'number') values.push({ label: 'maximum', value: s.maximum }, { label: 'maximum+1', value: s.maximum + 1 });
  if (typeof s.minimum === 'number') values.push({ label: 'minimum', value: s.minimum }, { label: 'minimum-1', value: s.minimum - 1 });
  if (typeof s.maxItems === 'number') values.push({ label: 'maxItems+1', value: Array.from({ length: s.maxItems + 1 }, (_, i) => `v${i}`) });
  if (s.type === 'array' || s.type === 'object') values.push({ label: '10k items', value: Array.from({ length: 10_000 }, (_, i) => i) });
  return values;
}

/** Path parameter values, already percent-encoded where a client would have to. */
export const MALFORMED_PATH_VALUES: { label: string; raw: string }[] = [
  { label: 'non-UUID', raw: 'not-a-uuid' }, { label: '3000 chars', raw: 'a'.repeat(3000) }, { label: 'NUL', raw: '%00' },
  { label: 'unicode', raw: encodeURIComponent('Ünïcødé😀') }, { label: 'SQL', raw: encodeURIComponent("1' OR '1'='1") },
  { label: 'bad percent', raw: '%zz' }, { label: 'lone percent', raw: '%' }, { label: 'dot-dot', raw: '..' },
  { label: 'encoded slash', raw: '%2F..%2Fetc' }, { label: 'zero', raw: '0' }, { label: 'negative', raw: '-1' },
  { label: 'nil uuid', raw: '00000000-0000-0000-0000-000000000000' }, { label: 'random uuid', raw: randomUUID() },
  { label: 'upper-case uuid', raw: randomUUID().toUpperCase() }, { label: 'uuid + space', raw: `${randomUUID()}%20` },
  { label: 'braced uuid', raw: `%7B${randomUUID()}%7D` }, { label: 'lone surrogate', raw: '%ED%A0%80' },
];

/** Query values for one declared parameter (the name is added by the caller). */
export const MALFORMED_QUERY_VALUES: { label: string; raw: string }[] = [
  { label: 'empty', raw: '' }, { label: 'word', raw: 'abc' }, { label: 'negative', raw: '-1' }, { label: 'zero', raw: '0' },
  { label: 'fraction', raw: '1.5' }, { label: 'huge', raw: '99999999999999999999999' }, { label: '1e400', raw: '1e400' },
  { label: 'NaN', raw: 'NaN' }, { label: 'true', raw: 'true' }, { label: 'null', raw: 'null' }, { label: 'NUL', raw: '%00' },
  { label: 'unicode', raw: encodeURIComponent('Ünïcødé😀') }, { label: 'SQL', raw: encodeURIComponent("' OR 1=1--") },
  { label: '5000 chars', raw: 'x'.repeat(5000) }, { label: 'bad percent', raw: '%zz' }, { label: 'random uuid', raw: randomUUID() },
  { label: 'bad date', raw: '2026-13-45' }, { label: 'base64 junk', raw: Buffer.from('["x","y"]').toString('base64url') },
];

/** Whole bodies that are not what any route takes. */
export const MALFORMED_BODIES: { label: string; payload: string; contentType: string }[] = [
  { label: 'truncated JSON', payload: '{"a":', contentType: 'application/json' },
  { label: 'not JSON', payload: 'nope', contentType: 'application/json' },
  { label: 'trailing comma', payload: '{"a":1,}', contentType: 'application/json' },
  { label: 'empty JSON body', payload: '', contentType: 'application/json' },
  { label: 'JSON array', payload: '[]', contentType: 'application/json' },
  { label: 'JSON string', payload: '"text"', contentType: 'application/json' },
  { label: 'JSON number', payload: '42', contentType: 'application/json' },
  { label: 'JSON null', payload: 'null', contentType: 'application/json' },
  { label: 'JSON true', payload: 'true', contentType: 'application/json' },
  { label: 'empty object', payload: '{}', contentType: 'application/json' },
  { label: '__proto__', payload: '{"__proto__":{"isAdmin":true}}', contentType: 'application/json' },
  { label: 'constructor.prototype', payload: '{"constructor":{"prototype":{"x":1}}}', contentType: 'application/json' },
  { label: 'deep nesting', payload: '['.repeat(20_000) + ']'.repeat(20_000), contentType: 'application/json' },
  { label: 'over 1 MiB', payload: `{"a":"${'x'.repeat(1024 * 1024 + 10)}"}`, contentType: 'application/json' },
  { label: 'UTF-16 charset', payload: '{}', contentType: 'application/json; charset=utf-16' },
  { label: 'text/plain', payload: '{}', contentType: 'text/plain' },
  { label: 'XML', payload: '<a/>', contentType: 'application/xml' },
  { label: 'form', payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
  { label: 'multipart', payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
  { label: 'garbage content type', payload: '{}', contentType: ';;;/' },
  { label: 'binary', payload: '\u0000\u0001\u0002\uffff', contentType: 'application/octet-stream' },
];

export const BAD_AUTHORIZATION: { label: string; value: string | undefined }[] = [
  { label: 'none', value: undefined }, { label: 'empty', value: '' }, { label: 'scheme only', value: 'Bearer' },
  { label: 'Basic', value: 'Basic dXNlcjpwYXNz' }, { label: 'garbage key', value: 'Bearer rpt_%%%%' },
  { label: 'long key', value: `Bearer ${'k'.repeat(8000)}` }, { label: 'two tokens', value: 'Bearer a b' },
  { label: 'unknown key', value: `Bearer rpt_${'A'.repeat(43)}` },
];
