// The address a per-client limit counts by. An IPv4 address is one client; an IPv6 one is counted by
// its /64, the block a provider hands a single customer (who could otherwise take a fresh address of
// it for every try and never meet a limit). An IPv4-mapped IPv6 address is the IPv4 address it carries.
import ipaddr from 'ipaddr.js';

/** The key of `ip`'s client for rate limits and sign-in throttles. */
export function clientAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts;
  return `${parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
