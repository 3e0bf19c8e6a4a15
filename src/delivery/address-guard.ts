// The address guard: a delivery may only connect to a public unicast address. Every address a
// host name resolves to is vetted with ipaddr.js's named ranges (IPv4-mapped, 6to4 and NAT64
// forms are judged by the IPv4 address they carry); the connection then goes to the vetted
// address itself, so a DNS answer that changes between the check and the connect cannot slip in.
// WEBHOOK_ALLOW_PRIVATE (src/lib/allow-list.ts) admits exact IPs, CIDR ranges (any port) or host:port pairs.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AllowList } from '../lib/allow-list.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address of the name. */
export const systemLookup: Lookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** How the message of a refused attempt starts (src/delivery/refusal-warning.ts looks for it). */
export const ADDRESS_REFUSED = 'address refused: ';

/** A refused address: the attempt fails with this message and no connection is made. */
export class AddressRefusedError extends Error {
  readonly code = 'E_ADDRESS_REFUSED';
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address', broadcast: 'a broadcast address', multicast: 'a multicast address',
  linkLocal: 'a link-local address', loopback: 'a loopback address', carrierGradeNat: 'a carrier-grade NAT (CGNAT) address',
  private: 'a private address', reserved: 'a reserved, documentation or benchmark address', benchmarking: 'a benchmark address',
  uniqueLocal: 'a unique-local address', as112: 'an AS112 address', as112v6: 'an AS112 address', amt: 'an AMT address',
  teredo: 'a Teredo address', discard: 'a discard-only address', rfc6145: 'an IPv4-translated address',
  deprecatedSiteLocal: 'a site-local address', deprecatedOrchid: 'an ORCHID address', orchid2: 'an ORCHID address',
  droneRemoteIdProtocolEntityTags: 'a reserved address', segmentRouting: 'a segment-routing address',
};

function allowsHostPort(allow: AllowList, hostname: string, port: number): boolean {
  return allow.hostPorts.size > 0 && allow.hostPorts.has(`${hostname.toLowerCase()}:${port}`);
}

/** Why the address may not be delivered to, or null when it is a public unicast address. */
function classify(address: Address): string | null {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? null : RANGE_WORDS[range] ?? `a ${range} address`;
  }
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return tagged('IPv4-mapped', classify(v6.toIPv4Address()));
  const range = v6.range();
  const bytes = v6.toByteArray();
  if (range === '6to4') return tagged('6to4', classify(new ipaddr.IPv4(bytes.slice(2, 6))));
  if (range === 'rfc6052') {
    if (!v6.match(NAT64_WELL_KNOWN)) return 'a local-use NAT64 address';
    return tagged('NAT64', classify(new ipaddr.IPv4(bytes.slice(12, 16))));
  }
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a ${range} address`;
  return v6.match(GLOBAL_UNICAST_V6) ? null : 'not a global unicast address';
}

const tagged = (form: string, reason: string | null) => (reason === null ? null : `the ${form} form of ${reason}`);

function allowListed(allow: AllowList, address: Address): boolean {
  return allow.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}

/** null when the address may be connected to; otherwise why not. */
export function vetAddress(allow: AllowList, text: string): string | null {
  let address: Address = ipaddr.parse(text);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  if (allowListed(allow, address)) return null;
  return classify(ipaddr.parse(text));
}

/**
 * The address to connect to for hostname:port: resolved here, every answer vetted (one bad answer
 * refuses the whole name: a name that mixes public and private answers is not trusted).
 */
export async function vettedAddress(allow: AllowList, lookup: Lookup, hostname: string, port: number): Promise<ResolvedAddress> {
  const literal = isIP(hostname);
  const answers = literal ? [{ address: hostname, family: literal }] : await lookup(hostname);
  if (answers.length === 0) throw new Error(`${hostname} did not resolve to any address`);
  if (allowsHostPort(allow, hostname, port)) return answers[0]!;
  for (const answer of answers) {
    const reason = vetAddress(allow, answer.address);
    if (reason !== null) {
      // A name's answer is not told: whoever may register an endpoint would learn what the server's
      // own network resolves a name to (an internal name's private address) from the delivery log.
      const what = literal ? `${answer.address} is` : `${hostname} resolves to`;
      throw new AddressRefusedError(`${ADDRESS_REFUSED}${what} ${reason} (WEBHOOK_ALLOW_PRIVATE can admit it for development)`);
    }
  }
  return answers[0]!;
}

/** The names that mean this machine without asking DNS (RFC 6761: localhost and every name under it). */
const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;

/** Answers only what needs no network: a localhost name is the loopback address; any other name is unknown here. */
const lookupWithoutNetwork: Lookup = async (hostname) => (LOCALHOST.test(hostname) ? [{ address: '127.0.0.1', family: 4 }] : []);

/**
 * Why deliveries to `url` will be refused, told without the network, so a page can warn when the URL
 * is saved (the API takes such URLs and refuses them at delivery, as its contract says): the message
 * an attempt would fail with, or null when the host is a public address or a name only DNS can judge.
 */
export async function refusalForeseen(allow: AllowList, url: string): Promise<string | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  try {
    await vettedAddress(allow, lookupWithoutNetwork, hostname, port);
    return null;
  } catch (error) {
    return error instanceof AddressRefusedError ? error.message : null;
  }
}
