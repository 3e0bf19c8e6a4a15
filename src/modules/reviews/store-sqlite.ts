// Bulk review writes on SQLite: per-row prepared better-sqlite3 statements (built once per
// database) on the raw handle, inside Kysely's transaction on the same connection.
import type { SqliteDatabase } from '../../db/connect.ts';
import type { ReviewRow } from '../../db/schema.ts';
import { sqliteEventRows } from '../../events/rows-sqlite.ts';
import { REVIEW_COLUMNS, REVIEW_FIELD_COLUMNS, type ReviewBulkStore } from './repository.ts';

export function sqliteReviewBulkStore({ sqlite }: SqliteDatabase): ReviewBulkStore {
  const insert = sqlite.prepare(`INSERT INTO reviews (${REVIEW_COLUMNS.join(', ')}) VALUES (${REVIEW_COLUMNS.map(() => '?').join(', ')})
    ON CONFLICT (account_id, platform, external_id) DO NOTHING`);
  const find = sqlite.prepare('SELECT * FROM reviews WHERE account_id = ? AND platform = ? AND external_id = ?');
  const update = sqlite.prepare(`UPDATE reviews SET ${REVIEW_FIELD_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`);
  return {
    eventRows: sqliteEventRows(sqlite),
    async writeRun(_trx, _accountId, run) {
      return run.map(({ index, row }) => {
        if (insert.run(REVIEW_COLUMNS.map((c) => row[c])).changes === 1) return { index, row, old: null };
        const old = find.get(row.account_id, row.platform, row.external_id) as ReviewRow;
        const updated: ReviewRow = { ...row, id: old.id, created_at: old.created_at };
        update.run([...REVIEW_FIELD_COLUMNS.map((c) => updated[c]), old.id]);
        return { index, row: updated, old };
      });
    },
  };
}
