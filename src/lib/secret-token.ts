// The one shape of every secret the service hands out and looks up later (API keys after their
// "rpt_" prefix, session cookies, password-reset links, invitation links): 32 bytes (256 bits) as
// 43 base64url characters, kept in the database only as a SHA-256, so a copy of the database holds
// nothing that signs in or opens a link.
import { createHash, randomBytes } from 'node:crypto';

/** A new random token: 32 bytes, base64url. */
export const newSecretToken = (): string => randomBytes(32).toString('base64url');

/** What the database stores of a token, and looks it up by: its SHA-256 in hex. */
export const secretTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether the text could be one of our tokens (43 base64url characters): anything else is refused unread. */
export const isSecretTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);
