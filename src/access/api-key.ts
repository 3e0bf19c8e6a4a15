// The API key format: "rpt_" + 32 random bytes in base64url, stored only as its SHA-256.
import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'rpt_';

export const newApiKey = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Cheap shape check before any database work: "rpt_" + 43 base64url characters (32 bytes). */
export const looksLikeKey = (key: string): boolean => /^rpt_[A-Za-z0-9_-]{43}$/.test(key);
