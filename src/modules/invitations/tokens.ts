// The two tokens of an invitation (the survey link /s/<token>, the unsubscribe link /u/<token>).
// Each is an HMAC-SHA-256 of the invitation's id under the server's secret key (256 bits, not
// guessable without the key), so the worker can put it in an e-mail at any attempt without the
// database ever holding it: the database keeps only its SHA-256 (secretTokenHash,
// src/lib/secret-token.ts), which the pages look up.
import { createHmac } from 'node:crypto';

export type TokenPurpose = 'survey' | 'unsubscribe';

export function invitationToken(secretKey: Buffer, invitationId: string, purpose: TokenPurpose): string {
  return createHmac('sha256', secretKey).update(`repute-invitation:${purpose}:${invitationId}`).digest('base64url');
}
