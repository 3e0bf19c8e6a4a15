// One warning in the log per webhook endpoint whose deliveries the address guard refuses (a private
// or loopback URL, e.g. a local receiver in the demo): otherwise the only trace would be each
// attempt's error in the admin API. Once per endpoint and process, not per attempt.
import type { Log } from '../lib/log.ts';
import { ADDRESS_REFUSED } from './address-guard.ts';

/** Endpoints remembered at most; past that the memory starts over (a warning may then repeat). */
const REMEMBERED = 10_000;

export function refusalWarner(log: Pick<Log, 'warn'>): (endpointId: string, url: string, error: string | null) => void {
  const warned = new Set<string>();
  return (endpointId, url, error) => {
    if (error === null || !error.startsWith(ADDRESS_REFUSED) || warned.has(endpointId)) return;
    if (warned.size >= REMEMBERED) warned.clear();
    warned.add(endpointId);
    const shown = withoutSecrets(url);
    log.warn(
      { endpoint: endpointId, url: shown, reason: error, setting: 'WEBHOOK_ALLOW_PRIVATE' },
      `webhook endpoint ${endpointId} (${shown}): ${error}; its deliveries fail, each attempt's reason is in GET /admin/v1/deliveries/{id}`,
    );
  };
}

/** The URL without user:password and query (either may carry a receiver's token). */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
