// Signing-secret rotation: a new secret returned once, the previous one kept (sealed the same way)
// and signing beside it for a grace period, so receivers switch without losing a delivery.
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../access/principal.ts';
import { newSecret } from '../../delivery/signer.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { seal } from '../../lib/secret-box.ts';
import * as repo from './repository.ts';
import { DEFAULT_GRACE_PERIOD_S, type SecretRotationInput, type WebhookEndpoint } from './schemas.ts';
import { ownEndpoint, toEndpoint, type WebhookSettings } from './service.ts';

/**
 * A new signing secret, returned this once. The previous one keeps signing beside it (two
 * signatures in webhook-signature) for the grace period, so receivers can switch without losing a
 * delivery. While a grace period runs, another rotation is refused (409) unless forced; a forced
 * one drops the older previous secret.
 */
export async function rotateSecret(db: Kysely<DB>, settings: Pick<WebhookSettings, 'secretKey'>, principal: Principal, id: string, input: SecretRotationInput): Promise<{ secret: string; endpoint: WebhookEndpoint }> {
  await ownEndpoint(db, principal, id);
  const grace = input.grace_period_seconds ?? DEFAULT_GRACE_PERIOD_S;
  return inTransaction(db, async (trx) => {
    const current = await repo.findSecret(trx, id);
    if (!current) throw notFound('webhook endpoint');
    const now = new Date();
    const nowText = now.toISOString();
    if (current.previous_secret_until !== null && current.previous_secret_until > nowText && input.force !== true) {
      throw conflict(`a secret rotation is in progress until ${current.previous_secret_until}; send "force": true to rotate again now`, 'rotation_in_progress');
    }
    const secret = newSecret();
    const until = grace > 0 ? new Date(now.getTime() + grace * 1000).toISOString() : null;
    // The previous secret stays sealed exactly as it was (same key, bound to the same endpoint id).
    await repo.setSecrets(trx, id, {
      secret_enc: seal(settings.secretKey, secret, id), previous_secret_enc: until === null ? null : current.secret_enc,
      previous_secret_until: until, updated_at: nowText,
    });
    const row = await repo.findEndpoint(trx, id);
    return { secret, endpoint: toEndpoint(row!, nowText) };
  });
}
