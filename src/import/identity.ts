// The identity of an imported non-review record (reviews have theirs: account, platform, external_id):
// the line's `external_id` when it has one, otherwise what the record is made of. Stored hashed in
// the record's import_key column (unique), so a file imported again, whole or after a crash, finds
// what the first run wrote instead of creating it twice.
import { createHash } from 'node:crypto';
import type { ParsedLine, RecordType } from './format.ts';

export type IdentifiedType = Exclude<RecordType, 'review'>;

/** JSON with object keys sorted, so the same content gives the same text whatever the key order of the line. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two lines the same record when there is no external_id: a topic is its account, name,
 * language and parent; a mention its review, source field, text and topics; a survey, a response
 * (in its survey) and a recommendation everything the line says. `parentId`: the response's survey
 * or the mention's review, as resolved. `body`: validated, with refs resolved to ids.
 */
function naturalKey(type: IdentifiedType, parentId: string | null, body: Record<string, unknown>): unknown[] {
  switch (type) {
    case 'topic': return [body.name, body.language ?? null, body.parent_label_id ?? null];
    case 'mention': return [parentId, body.source_field, body.text, body.canonical_label_id, body.custom_category_id ?? null];
    case 'response': return [parentId, body];
    case 'survey':
    case 'recommendation': return [body];
  }
}

/** The import_key of a line's record: a SHA-256 (hex) of its kind, account and external_id or natural key. */
export function importKey(line: ParsedLine, parentId: string | null, body: Record<string, unknown>): string {
  const type = line.type as IdentifiedType;
  const identity = line.externalId !== null
    ? [type, line.accountId, 'external_id', line.externalId]
    : [type, line.accountId, 'content', ...naturalKey(type, parentId, body)];
  return createHash('sha256').update(canonical(identity)).digest('hex');
}
