// The two tokens of an invitation (the survey link /s/<token>, the unsubscribe link /u/<token>).
// Each is an HMAC-SHA-256 of the invitation's id under the server's secret key (256 bits, not
// guessable without the key), so the worker can put it in an e-mail at any attempt without the
// database ever holding it: the database keeps only its SHA-256, which the pages look up.
import { createHash, createHmac } from 'node:crypto';

export type TokenPurpose = 'survey' | 'unsubscribe';

export function invitationToken(secretKey: Buffer, invitationId: string, purpose: TokenPurpose): string {
  return createHmac('sha256', secretKey).update(`repute-invitation:${purpose}:${invitationId}`).digest('base64url');
}

/** What the database stores and the pages look a token up by. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A link's token looks like one of ours (43 base64url characters); anything else is refused unread. */
export const isTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);
