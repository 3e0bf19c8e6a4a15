// Event rows on SQLite through one prepared better-sqlite3 statement (built once per store) instead
// of a large multi-row INSERT prepared afresh per call: bulk imports and guest pushes use it.
import type SQLite from 'better-sqlite3';
import type { EventRowWriter } from './outbox.ts';

export function sqliteEventRows(sqlite: SQLite.Database): EventRowWriter {
  const insert = sqlite.prepare<[string, string, string, string, string]>('INSERT INTO events (id, account_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)');
  return async (_trx, rows) => {
    for (const r of rows) insert.run(r.id, r.account_id, r.type, r.payload, r.created_at);
  };
}
