import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses are not public unicast hosts. The lane refuses to reach them (unless the
 * operator allows private hosts) because a URL pointing there would let a caller read the
 * service's own network: the metadata endpoint of a cloud host, an admin console on loopback.
 */

interface Ipv4Range {
  base: number;
  bits: number;
  kind: string;
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

const IPV4_RANGES: readonly Ipv4Range[] = [
  { base: ipv4ToNumber('0.0.0.0'), bits: 8, kind: 'unspecified ("this network")' },
  { base: ipv4ToNumber('10.0.0.0'), bits: 8, kind: 'private' },
  { base: ipv4ToNumber('100.64.0.0'), bits: 10, kind: 'carrier-grade NAT' },
  { base: ipv4ToNumber('127.0.0.0'), bits: 8, kind: 'loopback' },
  { base: ipv4ToNumber('169.254.0.0'), bits: 16, kind: 'link-local' },
  { base: ipv4ToNumber('172.16.0.0'), bits: 12, kind: 'private' },
  { base: ipv4ToNumber('192.168.0.0'), bits: 16, kind: 'private' },
  { base: ipv4ToNumber('224.0.0.0'), bits: 4, kind: 'multicast' },
  { base: ipv4ToNumber('240.0.0.0'), bits: 4, kind: 'reserved' },
];

function ipv4Kind(address: string): string | null {
  const value = ipv4ToNumber(address);
  for (const range of IPV4_RANGES) {
    const size = 2 ** (32 - range.bits);
    if (value >= range.base && value < range.base + size) return range.kind;
  }
  return null;
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

function ipv6Kind(address: string): string | null {
  const groups = ipv6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const leadingZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (leadingZero && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (leadingZero && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address that decides.
  const embedded = `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  if (leadingZero && g5 === 0xffff) return ipv4Kind(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embedded);
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/**
 * What kind of non-public address `address` is ("loopback", "private", "link-local", …), or
 * null for a public address. Anything that is not an IP literal is treated as non-public.
 */
export function nonPublicKind(address: string): string | null {
  if (isIPv4(address)) return ipv4Kind(address);
  if (isIPv6(address)) return ipv6Kind(address);
  return 'unparseable';
}
