// The operator's guest tools (admin API and CLI): look a guest up, withdraw its consent, and erase
// it under GDPR, leaving only a keyed fingerprint so that it is never repopulated.
import { sql } from 'kysely';
import { appendEvent } from '../../events/outbox.ts';
import { type DomainError, notFound } from '../../lib/errors.ts';
import { nowIso } from '../../lib/time.ts';
import type { GuestDeps } from './deps.ts';
import { toGuestDetail } from './map.ts';
import { requireAccountProperty } from './property.ts';
import * as repo from './repository.ts';
import type { Erased, GuestDetail } from './schemas.ts';
import { normaliseEmail } from './validate.ts';

async function guestNotFound(deps: GuestDeps, propertyId: string, email: string): Promise<DomainError> {
  const erasedAt = await repo.findErasure(deps.db, propertyId, deps.fingerprint(propertyId, email));
  return erasedAt ? notFound('guest', `guest not found: it was erased under GDPR at ${erasedAt}`) : notFound('guest');
}

export async function showGuest(deps: GuestDeps, accountId: string, propertyId: string, rawEmail: string): Promise<GuestDetail> {
  const email = normaliseEmail(rawEmail);
  const guest = await repo.findGuest(deps.db, accountId, propertyId, email);
  if (!guest) throw await guestNotFound(deps, propertyId, email);
  return toGuestDetail(guest, await repo.listStays(deps.db, guest.id));
}

export interface Unsubscribed {
  guest: GuestDetail;
  /** Consent changed to withdrawn by this call (and guest.unsubscribed was emitted). */
  changed: boolean;
}

export async function unsubscribeGuest(deps: GuestDeps, accountId: string, propertyId: string, rawEmail: string): Promise<Unsubscribed> {
  const email = normaliseEmail(rawEmail);
  // The write goes first: on SQLite a transaction that reads before it writes can lose its
  // snapshot to another process (a server pushing while the CLI runs).
  const result = await deps.db.transaction().execute(async (trx) => {
    const changedId = await repo.withdrawConsentByIdentity(trx, accountId, propertyId, email, nowIso());
    const guest = await repo.findGuest(trx, accountId, propertyId, email);
    if (!guest) return null;
    if (changedId) await appendEvent(trx, { accountId, type: 'guest.unsubscribed', data: { guest_id: guest.id, property_id: propertyId } });
    return { guest: toGuestDetail(guest, await repo.listStays(trx, guest.id)), changed: changedId !== undefined };
  });
  if (!result) throw await guestNotFound(deps, propertyId, email);
  return result;
}

/**
 * Deletes the guest and every stay of it, clears the address from the property's survey responses
 * and records the fingerprint. Erasing an unknown guest still records it: the person asked not to be
 * stored, so later pushes must answer 409 too.
 */
export async function eraseGuest(deps: GuestDeps, accountId: string, propertyId: string, rawEmail: string): Promise<Erased> {
  const email = normaliseEmail(rawEmail);
  await requireAccountProperty(deps.db, accountId, propertyId);
  const now = nowIso();
  const sqlite = deps.dialect === 'sqlite';
  const result = await deps.db.transaction().execute(async (trx) => {
    if (!sqlite) await repo.lockGuestsForErasure(trx);
    // The tombstone first: a write, so SQLite takes its write lock before reading anything.
    const erasedAt = await repo.insertTombstone(trx, propertyId, deps.fingerprint(propertyId, email), now);
    // SQLite: zero the freed bytes too, so the address does not linger in free pages of the file.
    if (sqlite) await sql`pragma secure_delete = on`.execute(trx);
    try {
      const guest = await repo.findGuest(trx, accountId, propertyId, email);
      const staysDeleted = guest ? await repo.deleteGuest(trx, guest.id) : 0;
      await repo.forgetRespondentEmail(trx, propertyId, email);
      return { property_id: propertyId, erased: true, guest_deleted: guest !== undefined, stays_deleted: staysDeleted, erased_at: erasedAt };
    } finally {
      if (sqlite) await sql`pragma secure_delete = off`.execute(trx);
    }
  });
  // SQLite keeps older page images in the write-ahead log until a checkpoint; fold them back now.
  if (sqlite) await sql`pragma wal_checkpoint(truncate)`.execute(deps.db);
  return result;
}
