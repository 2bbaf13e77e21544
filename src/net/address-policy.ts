import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses are not public unicast hosts. Every outward fetch (guarded-fetch.ts) refuses
 * to reach them unless the operator allowed private hosts for that fetch, because a URL pointing
 * there would let whoever wrote it read the service's own network: the metadata endpoint of a
 * cloud host, an admin console on loopback.
 *
 * Each table is read top to bottom and the first range that holds the address decides, so a
 * narrow range sits above the wider one it is cut from. A range that `embedsIpv4` is not
 * refused as a whole: a connection to it reaches the IPv4 address in its last 32 bits, so that
 * address is judged by the IPv4 table instead. Every other listed range is refused whole.
 */
export interface AddressRange {
  /** The range in CIDR notation. */
  cidr: string;
  /** The short name a refusal uses ("loopback" in "127.0.0.1 is a loopback address"). */
  kind: string;
  /** Why nothing public lives there, in one line. */
  reason: string;
  embedsIpv4?: true;
}

export const IPV4_NON_PUBLIC: readonly AddressRange[] = [
  { cidr: '0.0.0.0/8', kind: 'unspecified ("this network")', reason: 'no host has it; connecting to 0.0.0.0 reaches this machine' },
  { cidr: '10.0.0.0/8', kind: 'private', reason: 'RFC 1918 private network' },
  { cidr: '100.64.0.0/10', kind: 'carrier-grade NAT', reason: 'shared address space inside a provider (RFC 6598)' },
  { cidr: '127.0.0.0/8', kind: 'loopback', reason: 'this machine' },
  { cidr: '169.254.0.0/16', kind: 'link-local', reason: 'the local link only; holds cloud metadata endpoints (169.254.169.254)' },
  { cidr: '172.16.0.0/12', kind: 'private', reason: 'RFC 1918 private network' },
  { cidr: '192.0.0.0/24', kind: 'IETF protocol assignment', reason: 'special-purpose protocol addresses (RFC 6890), not web hosts' },
  { cidr: '192.0.2.0/24', kind: 'documentation', reason: 'TEST-NET-1, for examples only (RFC 5737)' },
  { cidr: '192.88.99.0/24', kind: '6to4 relay anycast', reason: 'deprecated 6to4 relay address (RFC 7526), a tunnel endpoint and not a web host' },
  { cidr: '192.168.0.0/16', kind: 'private', reason: 'RFC 1918 private network' },
  { cidr: '198.18.0.0/15', kind: 'benchmarking', reason: 'for network benchmark labs only (RFC 2544)' },
  { cidr: '198.51.100.0/24', kind: 'documentation', reason: 'TEST-NET-2, for examples only (RFC 5737)' },
  { cidr: '203.0.113.0/24', kind: 'documentation', reason: 'TEST-NET-3, for examples only (RFC 5737)' },
  { cidr: '224.0.0.0/4', kind: 'multicast', reason: 'group addresses, never one host' },
  { cidr: '255.255.255.255/32', kind: 'broadcast', reason: 'every host on the local network' },
  { cidr: '240.0.0.0/4', kind: 'reserved', reason: 'reserved for future use (RFC 1112), not routed' },
];

export const IPV6_NON_PUBLIC: readonly AddressRange[] = [
  { cidr: '::/128', kind: 'unspecified', reason: 'no host has it; connecting to :: reaches this machine' },
  { cidr: '::1/128', kind: 'loopback', reason: 'this machine' },
  {
    cidr: '::ffff:0:0/96',
    kind: 'IPv4-mapped',
    reason: 'an IPv4 address in IPv6 form; the connection goes to that IPv4 address, which decides',
    embedsIpv4: true,
  },
  { cidr: '::ffff:0:0:0/96', kind: 'IPv4-translated', reason: 'SIIT translator form (RFC 2765), reaches the IPv4 side of a local translator' },
  { cidr: '::/96', kind: 'IPv4-compatible', reason: 'deprecated IPv4-in-IPv6 form (RFC 4291); ::127.0.0.1 would be loopback' },
  {
    cidr: '64:ff9b::/96',
    kind: 'NAT64',
    reason: 'well-known NAT64 prefix (RFC 6052); the translator connects to the embedded IPv4 address, which decides',
    embedsIpv4: true,
  },
  { cidr: '64:ff9b:1::/48', kind: 'NAT64 local-use', reason: "a network's own NAT64 prefix (RFC 8215), translated inside that network" },
  { cidr: '100::/64', kind: 'discard-only', reason: 'traffic to it is dropped (RFC 6666)' },
  { cidr: '2001::/32', kind: 'Teredo', reason: 'tunnel to an IPv4 client whose (obfuscated) address may be private (RFC 4380)' },
  { cidr: '2001:2::/48', kind: 'benchmarking', reason: 'for network benchmark labs only (RFC 5180)' },
  { cidr: '2001:10::/28', kind: 'ORCHID', reason: 'deprecated cryptographic host identifiers (RFC 4843), not routable' },
  { cidr: '2001:20::/28', kind: 'ORCHIDv2', reason: 'cryptographic host identifiers (RFC 7343), not locators of web hosts' },
  { cidr: '2001:db8::/32', kind: 'documentation', reason: 'for examples only (RFC 3849)' },
  { cidr: '2001::/23', kind: 'IETF protocol assignment', reason: 'special-purpose protocol addresses (RFC 2928), not web hosts' },
  { cidr: '2002::/16', kind: '6to4', reason: 'deprecated tunnel (RFC 7526) to its embedded IPv4 address; refused whole, whatever that address is' },
  { cidr: '3fff::/20', kind: 'documentation', reason: 'for examples only (RFC 9637)' },
  { cidr: '5f00::/16', kind: 'SRv6 segment identifier', reason: 'segment routing identifiers inside one operator (RFC 9602)' },
  { cidr: 'fc00::/7', kind: 'unique-local', reason: 'private network, the IPv6 counterpart of RFC 1918 (RFC 4193)' },
  { cidr: 'fe80::/10', kind: 'link-local', reason: 'the local link only' },
  { cidr: 'fec0::/10', kind: 'site-local', reason: 'deprecated private site addresses (RFC 3879)' },
  { cidr: 'ff00::/8', kind: 'multicast', reason: 'group addresses, never one host' },
  { cidr: '::/3', kind: 'reserved', reason: 'outside 2000::/3, the only block allocated for global unicast' },
  { cidr: '4000::/2', kind: 'reserved', reason: 'outside 2000::/3, the only block allocated for global unicast' },
  { cidr: '8000::/1', kind: 'reserved', reason: 'outside 2000::/3, the only block allocated for global unicast' },
];

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** Expands an IPv6 address (with an optional trailing dotted IPv4 part) into eight 16-bit groups. */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const value = ipv4ToNumber(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...fill, ...back];
}

function ipv6ToBigInt(address: string): bigint {
  return ipv6Groups(address).reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

interface CompiledRange {
  range: AddressRange;
  base: bigint;
  shift: bigint;
}

function compile(ranges: readonly AddressRange[], width: 32 | 128): CompiledRange[] {
  return ranges.map((range) => {
    const [base = '', bits = ''] = range.cidr.split('/');
    const value = width === 32 ? BigInt(ipv4ToNumber(base)) : ipv6ToBigInt(base);
    const shift = BigInt(width - Number(bits));
    return { range, base: value >> shift, shift };
  });
}

const IPV4_COMPILED = compile(IPV4_NON_PUBLIC, 32);
const IPV6_COMPILED = compile(IPV6_NON_PUBLIC, 128);

function firstHolding(table: readonly CompiledRange[], value: bigint): AddressRange | null {
  return table.find((entry) => value >> entry.shift === entry.base)?.range ?? null;
}

function ipv6Range(address: string): AddressRange | null {
  const value = ipv6ToBigInt(address);
  const range = firstHolding(IPV6_COMPILED, value);
  if (range?.embedsIpv4) return firstHolding(IPV4_COMPILED, value & 0xffffffffn);
  return range;
}

/**
 * The listed range that makes `address` non-public (for an address embedding IPv4, the IPv4
 * range of the embedded address), or null for a public address or a string that is no address.
 */
export function nonPublicRange(address: string): AddressRange | null {
  if (isIPv4(address)) return firstHolding(IPV4_COMPILED, BigInt(ipv4ToNumber(address)));
  if (isIPv6(address)) return ipv6Range(address);
  return null;
}

/**
 * What kind of non-public address an address is ("loopback", "private", …), or null when it counts
 * as public. The built-in one is `nonPublicKind`; a test injects its own to call a loopback
 * address public, so that a check it passes never sends traffic past loopback.
 */
export type AddressPolicy = (address: string) => string | null;

/**
 * What kind of non-public address `address` is ("loopback", "private", "link-local", …), or
 * null for a public address. Anything that is not an IP literal is treated as non-public.
 */
export const nonPublicKind: AddressPolicy = (address) => {
  if (!isIPv4(address) && !isIPv6(address)) return 'unparseable';
  return nonPublicRange(address)?.kind ?? null;
};

/** "a" or "an" before a kind, as a refusal reads it aloud ("an IPv4-compatible", "a unique-local"). */
export function articleFor(kind: string): 'a' | 'an' {
  return /^(?:[aeio]|un(?!i))/i.test(kind) ? 'an' : 'a';
}
