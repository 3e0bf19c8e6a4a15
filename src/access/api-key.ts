// The API key format: "rpt_" + a secret token (src/lib/secret-token.ts), stored only as its SHA-256.
import { isSecretTokenShaped, newSecretToken, secretTokenHash } from '../lib/secret-token.ts';

const KEY_PREFIX = 'rpt_';

export const newApiKey = (): string => KEY_PREFIX + newSecretToken();

export const hashKey = secretTokenHash;

/** Cheap shape check before any database work: "rpt_" + 43 base64url characters (32 bytes). */
export const looksLikeKey = (key: string): boolean => key.startsWith(KEY_PREFIX) && isSecretTokenShaped(key.slice(KEY_PREFIX.length));
