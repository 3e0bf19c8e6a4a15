// The one-way fingerprint an erased guest leaves behind: HMAC-SHA256 of (property, normalised e-mail)
// under a key derived from REPUTE_SECRET_KEY. A bare hash of an e-mail can be reversed by hashing a
// list of known addresses; the keyed form cannot without the installation's secret. The key is
// stable across restarts (REPUTE_SECRET_KEY, or the generated key file beside a SQLite database);
// rotating it makes earlier tombstones unrecognisable (documented in the README).
import { createHmac, hkdfSync } from 'node:crypto';

export type Fingerprinter = (propertyId: string, email: string) => string;

export function fingerprinter(secretKey: Buffer): Fingerprinter {
  const key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'repute guest-erasure v1', 32));
  return (propertyId, email) => createHmac('sha256', key).update(`${propertyId}\n${email}`).digest('hex');
}
