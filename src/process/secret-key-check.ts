// At start: is REPUTE_SECRET_KEY the key this database's webhook signing secrets were sealed with?
// With another key no delivery can be signed (they wait: src/delivery/sealed-wait.ts) and the survey
// links already sent are invalid, which an operator would otherwise learn only from a guest.
// One endpoint is enough to tell; without any there is nothing sealed to check.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { open } from '../lib/secret-box.ts';

/** Logs an error when the key cannot open a webhook secret of this database; true when it can (or there is none). */
export async function checkSecretKey(db: Kysely<DB>, key: Buffer, log: { error(object: object, message: string): void }): Promise<boolean> {
  const row = await db.selectFrom('webhook_endpoints').select(['id', 'secret_enc']).limit(1).executeTakeFirst();
  if (row === undefined) return true;
  try {
    open(key, row.secret_enc, row.id);
    return true;
  } catch {
    log.error({ endpointId: row.id }, 'REPUTE_SECRET_KEY is not the key this database was written with: webhook deliveries wait (no attempt is spent) and survey links already sent are invalid (set the original key)');
    return false;
  }
}
