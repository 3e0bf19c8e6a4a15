// SQL of the importer's own: finding a record a previous run imported, by its import_key.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { IdentifiedType } from './identity.ts';

const TABLES = {
  survey: 'surveys', response: 'survey_responses', topic: 'topics', mention: 'mentions', recommendation: 'recommendations',
} as const satisfies Record<IdentifiedType, keyof DB>;

/** The id of the record of this kind with this import_key, if one was imported before. */
export async function findImported(db: Kysely<DB>, type: IdentifiedType, key: string): Promise<string | undefined> {
  // The five tables share the column; Kysely types one table at a time.
  const table = TABLES[type] as 'surveys';
  return (await db.selectFrom(table).select('id').where('import_key', '=', key).executeTakeFirst())?.id;
}
