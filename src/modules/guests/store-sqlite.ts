// Guest push and erasure on SQLite: the upserts as prepared better-sqlite3 statements (built once
// per database), run synchronously in group commits (src/db/sqlite-group-commit.ts), each push in
// its own savepoint, with the erasure check inline (the single writer makes it safe).
import { sql } from 'kysely';
import type { SqliteDatabase } from '../../db/connect.ts';
import { sqliteGroupCommit } from '../../db/sqlite-group-commit.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { GuestRow, ReservationRow } from '../../db/schema.ts';
import { appendEvents, type NewEvent } from '../../events/outbox.ts';
import { sqliteEventRows } from '../../events/rows-sqlite.ts';
import {
  GUEST_COLUMNS, type GuestStore, guestParams, guestUpsert, type Merge, type Placeholder, type PushOutcome,
  STAY_COLUMNS, stayParams, stayUpsert,
} from './repository.ts';

/** SQLite binds booleans as 0/1. */
const bits = (params: Record<string, unknown>): Record<string, unknown> => {
  for (const [k, v] of Object.entries(params)) if (typeof v === 'boolean') params[k] = v ? 1 : 0;
  return params;
};

export function sqliteGuestStore(database: SqliteDatabase): GuestStore {
  const { db, sqlite } = database;
  const merge: Merge = (a, b) => `json_patch(${a}, ${b})`;
  const named: Placeholder = (name) => `@${name}`;
  const stayValues = `values (${STAY_COLUMNS.map((c) => `@r_${c}`).join(', ')})`;
  // No row back when (property, e-mail) was erased.
  const upsertGuest = sqlite.prepare(`${guestUpsert(named, merge, `select ${GUEST_COLUMNS.map((c) => `@${c}`).join(', ')}
    where not exists (select 1 from erased_guests where property_id = @property_id and fingerprint = @fingerprint)`)} returning *`);
  /** A stay that is new or already this guest's (the common case). */
  const upsertStay = sqlite.prepare(`${stayUpsert(named, merge, stayValues, true)} returning *`);
  /** A stay that belongs to another guest of the property: it moves to this one. */
  const moveStay = sqlite.prepare(`${stayUpsert(named, merge, stayValues)} returning *`);
  const withdraw = sqlite.prepare<[string, string]>(`update guests set marketing_consent = 'withdrawn', updated_at = ? where id = ? and marketing_consent <> 'withdrawn'`);
  const eventRows = sqliteEventRows(sqlite);
  const inNextBatch = sqliteGroupCommit<NewEvent>(database, async (conn, events) => {
    await appendEvents(conn, events, eventRows);
  });

  return {
    push: (w, rules) => inNextBatch((): PushOutcome => {
      const guest = upsertGuest.get(bits(guestParams(w.guest, { fingerprint: w.fingerprint }))) as GuestRow | undefined;
      if (!guest) throw rules.erased();
      const created = guest.id === w.guest.row.id;
      const unsubscribed = w.consent === false && (created || withdraw.run(w.now, guest.id).changes > 0);
      let stay: ReservationRow | null = null;
      if (w.stay) {
        const params = bits(stayParams({ ...w.stay, row: { ...w.stay.row, guest_id: guest.id } }));
        stay = (upsertStay.get(params) ?? moveStay.get(params)) as ReservationRow;
      }
      rules.checkStored(w, guest, stay);
      return { guest, stay, created, unsubscribed };
    }, rules.events),

    async erase(run) {
      const result = await inTransaction(db, async (trx) => {
        // Zero the freed bytes too, so the address does not linger in free pages of the file.
        await sql`pragma secure_delete = on`.execute(trx);
        try {
          return await run(trx);
        } finally {
          await sql`pragma secure_delete = off`.execute(trx);
        }
      });
      // SQLite keeps older page images in the write-ahead log until a checkpoint; fold them back now.
      await sql`pragma wal_checkpoint(truncate)`.execute(db);
      return result;
    },
  };
}
