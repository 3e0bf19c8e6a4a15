// Guest push and erasure on SQLite: the upserts as prepared better-sqlite3 statements (built once
// per database), run synchronously in group commits (src/db/sqlite-group-commit.ts), each push in
// its own savepoint, with the erasure check inline (the single writer makes it safe).
import { setTimeout } from 'node:timers/promises';
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

/** How long an erasure waits for the write-ahead log to be emptied before leaving it to the checkpointer. */
const WAL_TRUNCATE_PATIENCE_MS = 5_000;

/**
 * SQLite keeps older page images (the erased address among them) in the write-ahead log until a
 * checkpoint; fold them back and cut the log to zero now. A TRUNCATE checkpoint cannot finish while
 * another connection holds a lock (the checkpointer thread mid-checkpoint, a reader's snapshot): it
 * answers busy and leaves the log as it was, so it is tried again until it goes through. The busy
 * handler is off meanwhile because it would sleep on this thread, the one that serves every request.
 */
async function truncateWal({ db, sqlite }: SqliteDatabase): Promise<void> {
  const deadline = Date.now() + WAL_TRUNCATE_PATIENCE_MS;
  const attempt = () => db.connection().execute(async () => {
    const busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
    sqlite.pragma('busy_timeout = 0');
    try {
      return (sqlite.pragma('wal_checkpoint(truncate)') as Array<{ busy: number }>)[0]?.busy === 0;
    } catch (error) {
      if (/^SQLITE_(BUSY|LOCKED)/.test((error as { code?: string }).code ?? '')) return false;
      throw error;
    } finally {
      sqlite.pragma(`busy_timeout = ${busyTimeout}`);
    }
  });
  // Past the deadline, the checkpointer's truncation of an idle log finishes it.
  while (!(await attempt()) && Date.now() < deadline) await setTimeout(10);
}

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
      await truncateWal(database);
      return result;
    },
  };
}
