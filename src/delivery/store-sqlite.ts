// Delivery claims and results on SQLite, with prepared better-sqlite3 statements (this is the hot
// path) in immediate transactions: SQLite has one writer, so a claim cannot race another process's.
// The lease is written into next_attempt_at, so an expired lease makes the delivery due again.
import type { SqliteDatabase } from '../db/connect.ts';
import { type AttemptRecord, autoDisableReason, type ClaimedDelivery, type ClaimedRow, type ClaimRequest, type DeliveryStore, endpointHealth, GONE_REASON, toClaimed } from './store.ts';

export function sqliteDeliveryStore({ db, sqlite }: SqliteDatabase): DeliveryStore {
  const candidates = sqlite.prepare<[string], { id: string }>(`
    SELECT e.id FROM webhook_endpoints e
    WHERE e.is_active = 1 AND EXISTS (SELECT 1 FROM webhook_deliveries d
      WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ?)`);
  const due = sqlite.prepare<[string, string, string, number], ClaimedRow>(`
    SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, ev.payload, e.url, e.secret_enc,
      e.previous_secret_enc, e.previous_secret_until, d.manual_retry
    FROM webhook_deliveries d
    JOIN events ev ON ev.id = d.event_id
    JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at <= ?
      AND (d.attempt_count > 0 OR d.next_attempt_at <= ?)
    ORDER BY d.next_attempt_at LIMIT ?`);
  const lease = sqlite.prepare<[string, string, string, string]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ?, lease_until = ?, lease_owner = ? WHERE id = ?');
  const update = sqlite.prepare<[string, number | null, string, string, string, string]>(`
    UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1, last_status_code = ?,
      last_attempt_at = ?, next_attempt_at = ?, lease_until = NULL, lease_owner = NULL, manual_retry = 0
    WHERE id = ? AND lease_owner = ?`);
  const insertAttempt = sqlite.prepare<[string, string, string, number | null, number, string | null, string | null]>(`
    INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error, response_body)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const pause = sqlite.prepare<[string, string, string]>('UPDATE webhook_endpoints SET is_active = 0, disabled_reason = ?, updated_at = ? WHERE id = ?');
  // Endpoint health (auto-disable): written only when it changes, so a healthy endpoint costs no write.
  const healthy = sqlite.prepare<[string]>('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL');
  const failing = sqlite.prepare<[string, string, number]>(
    'UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND (failing_since IS NULL OR ? = 1)');
  const disable = sqlite.prepare<[string, string, string, string]>(
    'UPDATE webhook_endpoints SET is_active = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND is_active = 1 AND failing_since <= ?');
  const giveBack = sqlite.prepare<[string, string, string]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ?, lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?');

  const claimTx = sqlite.transaction((r: ClaimRequest): ClaimedDelivery[] => {
    const excluded = new Set(r.excluded);
    const endpoints = candidates.all(r.now).map((row) => row.id).filter((id) => !excluded.has(id));
    shuffle(endpoints);
    const claimed: ClaimedDelivery[] = [];
    for (const endpointId of endpoints) {
      const room = Math.min(r.room.get(endpointId) ?? r.perEndpoint, r.limit - claimed.length);
      if (room <= 0) break;
      for (const row of due.all(endpointId, r.now, r.firstAttemptCutoff, room)) {
        lease.run(r.leaseUntil, r.leaseUntil, r.owner, row.id);
        claimed.push(toClaimed(row, r));
      }
    }
    return claimed;
  });

  const recordTx = sqlite.transaction((records: AttemptRecord[], autoDisableAfterS: number): string[] => {
    const disabled: string[] = [];
    for (const x of records) {
      // Nothing is written for a delivery that was deleted (DELETE wins) or whose lease was lost.
      const changed = update.run(x.status, x.statusCode, x.attemptedAt, x.nextAttemptAt, x.deliveryId, x.owner).changes;
      if (changed === 1) insertAttempt.run(x.attemptId, x.deliveryId, x.attemptedAt, x.statusCode, x.durationMs, x.error, x.responseBody);
      if (x.pauseEndpointId !== null) pause.run(GONE_REASON, x.attemptedAt, x.pauseEndpointId);
    }
    const now = new Date();
    const cutoff = new Date(now.getTime() - autoDisableAfterS * 1000).toISOString();
    for (const h of endpointHealth(records)) {
      if (h.failingSince === null) {
        healthy.run(h.endpointId);
        continue;
      }
      failing.run(h.failingSince, h.endpointId, h.restart ? 1 : 0);
      if (autoDisableAfterS > 0 && disable.run(autoDisableReason(autoDisableAfterS, h.lastError), now.toISOString(), h.endpointId, cutoff).changes === 1) {
        disabled.push(h.endpointId);
      }
    }
    return disabled;
  });

  const releaseTx = sqlite.transaction((deliveries: ClaimedDelivery[], now: string) => {
    for (const d of deliveries) giveBack.run(now, d.id, d.owner);
  });

  // Kysely runs its transactions on this same connection: take its connection lock first, so these
  // statements never land inside (and roll back with) someone else's transaction.
  const exclusive = <T>(run: () => T): Promise<T> => db.connection().execute(async () => run());

  return {
    claim: (r) => exclusive(() => claimTx.immediate(r)),
    async record(records, autoDisableAfterS) {
      return records.length > 0 ? exclusive(() => recordTx.immediate(records, autoDisableAfterS)) : [];
    },
    async release(deliveries, now) {
      if (deliveries.length > 0) await exclusive(() => releaseTx.immediate(deliveries, now));
    },
  };
}

function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
