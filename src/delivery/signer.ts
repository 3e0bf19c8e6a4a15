// Standard Webhooks signing (standardwebhooks.com) with node:crypto's HMAC: secrets are
// "whsec_" + base64 of 32 random bytes, and the signature is "v1," + base64 HMAC-SHA256 of
// "{webhook-id}.{webhook-timestamp}.{body}" under the decoded secret bytes. During a secret
// rotation's grace period both secrets sign: their signatures go space-separated in one header,
// as the specification allows, so a receiver holding either secret verifies the delivery.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a "whsec_…" secret: its base64 part decoded. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function sign(key: Buffer, id: string, timestampS: number, body: string): string {
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64');
}

/** Every header of one attempt, signed with each key; the timestamp is this attempt's, the id the event's. */
export function webhookHeaders(keys: Buffer | readonly Buffer[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signature = (Buffer.isBuffer(keys) ? [keys] : keys).map((key) => sign(key, id, timestamp, body)).join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': 'Repute-Webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
    'x-svc-signature': signature,
  };
}
