// An account's own categories: topics of the account with keyword lists per language, which the
// insights engine matches in each mention's stretch of text (a match sets custom_category_id).
// New keywords apply to reviews read from then on; `repute insights extract` reads the old ones again.
import type { Kysely } from 'kysely';
import type { DB, TopicRow } from '../../db/schema.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import { conflict, invalid, notFound } from '../../lib/errors.ts';
import { lookup, newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { requireAccount } from '../accounts/service.ts';
import * as repo from './repository.ts';
import type { Category, CategoryInput, CategoryPatch } from './schemas.ts';

/** Keywords as stored and matched: lower-case, trimmed, without duplicates or empty lists. */
export function normaliseKeywords(keywords: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [language, words] of Object.entries(keywords)) {
    if (!/^[a-z]{2,3}$/.test(language)) throw invalid(`body.keywords.${language} must be named by a language code such as en or de`);
    const list = [...new Set(words.map((w) => w.trim().toLocaleLowerCase(language)).filter(Boolean))];
    if (list.length > 0) out[language] = list;
  }
  if (Object.keys(out).length === 0) throw invalid('body.keywords must hold at least one keyword in one language');
  return out;
}

const toCategory = (row: TopicRow): Category => ({
  id: row.id, account_id: row.account_id!, name: row.name, parent_label_id: row.parent_label_id,
  keywords: JSON.parse(row.keywords ?? '{}') as Record<string, string[]>, created_at: row.created_at,
});

async function requireCategory(db: Kysely<DB>, id: string): Promise<TopicRow> {
  const row = await lookup(id, (uuid) => repo.findTopic(db, uuid));
  if (!row || row.account_id === null || row.keywords === null) throw notFound('category');
  return row;
}

export async function createCategory(db: Kysely<DB>, accountId: string, input: CategoryInput): Promise<Category> {
  await requireAccount(db, accountId);
  if (input.parent_label_id != null) {
    const parent = await repo.findTopic(db, input.parent_label_id);
    if (!parent || (parent.account_id !== null && parent.account_id !== accountId)) {
      throw invalid('body.parent_label_id must be a topic readable by this account (global or its own)');
    }
  }
  const row: TopicRow = {
    id: newId(), account_id: accountId, name: input.name, language: null, parent_label_id: input.parent_label_id ?? null,
    created_at: nowIso(), import_key: null, keywords: JSON.stringify(normaliseKeywords(input.keywords)),
  };
  await repo.insertTopic(db, row);
  return toCategory(row);
}

export async function listCategories(db: Kysely<DB>, accountId: string): Promise<Category[]> {
  await requireAccount(db, accountId);
  return (await repo.listCategories(db, accountId)).map(toCategory);
}

export async function updateCategory(db: Kysely<DB>, id: string, patch: CategoryPatch): Promise<Category> {
  const row = await requireCategory(db, id);
  const changes = {
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.keywords === undefined ? {} : { keywords: JSON.stringify(normaliseKeywords(patch.keywords)) }),
  };
  if (Object.keys(changes).length > 0) await repo.updateCategory(db, id, changes);
  return toCategory({ ...row, ...changes });
}

export async function deleteCategory(db: Kysely<DB>, id: string): Promise<{ id: string; deleted: true }> {
  await requireCategory(db, id);
  try {
    await db.transaction().execute((trx) => repo.deleteCategory(trx, id));
  } catch (error) {
    if (isForeignKeyViolation(error)) throw conflict('this category is the parent of another topic or the topic of an operator\'s mention: remove those first');
    throw error;
  }
  return { id, deleted: true };
}
