// A password in a webhook endpoint's URL (https://user:pass@host/…) is never put on a page: the list
// and the edit form show it as ••• (whoever looks at the screen, or at the page's source, does not
// learn it). A form sent back with ••• keeps the stored password, but only for the same scheme, host
// and user: otherwise an owner who cannot see the password could send it to a server of their
// choosing by changing the host alone.
import { decodedUrlPart } from '../../lib/url-part.ts';

/** What stands for a stored password on a page. */
const MASK = '•••';

/** The URL with its password, if any, shown as •••. */
export function maskedUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || parsed.password === '') return url;
  return `${parsed.protocol}//${parsed.username}:${MASK}@${parsed.host}${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/**
 * The URL to store for a form's `submitted` URL: as sent, or, when it carries ••• for its password,
 * with the stored password put back; null when ••• comes with another scheme, host or user than the
 * stored URL's (the password must then be typed again).
 */
export function keepStoredPassword(submitted: string, stored: string): string | null {
  if (submitted === maskedUrl(stored)) return stored;
  const sent = URL.canParse(submitted) ? new URL(submitted) : null;
  if (sent === null || decodedUrlPart(sent.password) !== MASK) return submitted;
  const kept = new URL(stored);
  if (sent.protocol !== kept.protocol || sent.host !== kept.host || sent.username !== kept.username || kept.password === '') return null;
  sent.password = kept.password;
  return sent.href;
}
