// WEBHOOK_ALLOW_PRIVATE: the addresses a webhook may be delivered to although they are not public
// (exact IPs, CIDR ranges of any port, or host:port pairs), for development and private networks.
// Parsed at start-up (config.ts: a bad entry is a configuration error) and by the delivery worker,
// whose address guard (src/delivery/address-guard.ts) consults it.
import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-error.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowList {
  ranges: Array<[Address, number]>;
  /** "host:port" with the host lower-cased and IPv6 without brackets. */
  hostPorts: Set<string>;
}

export function parseAllowList(entries: readonly string[]): AllowList {
  const allow: AllowList = { ranges: [], hostPorts: new Set() };
  for (const entry of entries) {
    if (ipaddr.isValidCIDR(entry)) {
      allow.ranges.push(ipaddr.parseCIDR(entry));
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      allow.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      const match = /^(?:\[([^\]]+)\]|([^:[\]/\s]+)):(\d{1,5})$/.exec(entry);
      const port = match ? Number(match[3]) : NaN;
      if (!match || port < 1 || port > 65535) {
        throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE entries must be IP addresses, CIDR ranges or host:port pairs, got "${entry}"`);
      }
      allow.hostPorts.add(`${(match[1] ?? match[2])!.toLowerCase()}:${port}`);
    }
  }
  return allow;
}
