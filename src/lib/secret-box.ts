// Encryption at rest of webhook signing secrets: AES-256-GCM under REPUTE_SECRET_KEY, bound to the
// row it belongs to (the endpoint id is the associated data, so a ciphertext copied to another row
// does not decrypt). Stored form: "v1." + base64(iv ‖ tag ‖ ciphertext).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, plaintext: string, boundTo: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** Throws when the key is wrong, the text was tampered with or it belongs to another row. */
export function open(key: Buffer, sealed: string, boundTo: string): string {
  if (!sealed.startsWith(VERSION)) throw new Error('sealed secret has an unknown format');
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
