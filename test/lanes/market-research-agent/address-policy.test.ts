import { describe, expect, it, vi } from 'vitest';
import { articleFor, IPV4_NON_PUBLIC, IPV6_NON_PUBLIC, nonPublicKind, nonPublicRange } from '../../../src/net/address-policy.js';
import type { NetworkDeps } from '../../../agents/market-research-agent/fetch-page.js';
import type { PinnedRequest } from '../../../src/net/pinned-request.js';
import { runMarketResearch, type MarketResearchResult, type Source } from '../../../agents/market-research-agent/research.js';

const HINT = 'private hosts are not allowed (marketResearch.allowPrivateHosts is false)';

/** One address inside every non-public range, with the kind a refusal names it by. */
const NON_PUBLIC: ReadonlyArray<[address: string, kind: string]> = [
  ['0.1.2.3', 'unspecified ("this network")'],
  ['10.255.255.254', 'private'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['127.5.6.7', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['172.16.0.1', 'private'],
  ['192.0.0.8', 'IETF protocol assignment'],
  ['192.0.2.10', 'documentation'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private'],
  ['198.19.255.254', 'benchmarking'],
  ['198.51.100.20', 'documentation'],
  ['203.0.113.30', 'documentation'],
  ['224.0.0.251', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  // IPv4-mapped and NAT64 connect to the embedded IPv4 address: that address decides.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  // The other IPv4-embedding forms are refused whole, whatever they embed.
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated'],
  ['64:ff9b:1::a00:1', 'NAT64 local-use'],
  ['2002:7f00:1::1', '6to4'],
  ['2002:808:808::1', '6to4'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['100::1', 'discard-only'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:db8::1', 'documentation'],
  ['2001:1::1', 'IETF protocol assignment'],
  ['3fff::1', 'documentation'],
  ['5f00::1', 'SRv6 segment identifier'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['400::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['fe00::1', 'reserved'],
];

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '172.32.0.1',
  '100.128.0.1',
  '192.0.1.255',
  '192.0.3.0',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.255',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2003::1',
  '3fff:1000::1',
];

const SETTINGS = { allowPrivateHosts: false, allowedDomains: ['acme.example'] };

async function researchWith(urls: string[], deps: NetworkDeps): Promise<Source[]> {
  return ((await runMarketResearch({ urls, __marketResearch: SETTINGS }, deps)) as MarketResearchResult).sources as Source[];
}

describe('non-public address ranges', () => {
  it.each(NON_PUBLIC)('classifies %s as %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(PUBLIC)('treats %s as public', (address) => {
    expect(nonPublicKind(address)).toBeNull();
  });

  it('covers every listed range with an address above, and gives each range a reason', () => {
    const hit = new Set(NON_PUBLIC.map(([address]) => nonPublicRange(address)));
    for (const range of [...IPV4_NON_PUBLIC, ...IPV6_NON_PUBLIC]) {
      expect(range.reason, range.cidr).toMatch(/\S/);
      // A range that embeds IPv4 is decided by the embedded address's range, never by itself.
      if (!range.embedsIpv4) expect(hit.has(range), range.cidr).toBe(true);
    }
  });

  it('names a kind with the article it is read with', () => {
    expect(['loopback', 'unique-local', 'unspecified', 'IPv4-compatible', 'IETF protocol assignment', 'ORCHID', '6to4'].map(articleFor)).toEqual([
      'a',
      'a',
      'an',
      'an',
      'an',
      'an',
      'a',
    ]);
  });

  it.each(NON_PUBLIC)('refuses the literal URL of %s before any lookup, and a name resolving to it, without a request', async (address, kind) => {
    const lookup = vi.fn<NetworkDeps['lookup']>(async () => [{ address, family: address.includes(':') ? 6 : 4 }]);
    const request = vi.fn<PinnedRequest>();
    const literal = address.includes(':') ? `http://[${address}]/pricing` : `http://${address}/pricing`;
    const sources = await researchWith([literal], { lookup, request });
    const shown = new URL(literal).hostname.replace(/^\[|\]$/g, '');
    expect(sources.map((s) => [s.status, s.reason])).toEqual([['refused', `${shown} is ${articleFor(kind)} ${kind} address; ${HINT}`]]);
    expect(lookup).not.toHaveBeenCalled();

    const named = await researchWith(['https://pricing.acme.example/plans'], { lookup, request });
    expect(named.map((s) => [s.status, s.reason])).toEqual([['refused', `pricing.acme.example resolves to ${kind} address ${address}; ${HINT}`]]);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(request).not.toHaveBeenCalled();
  });
});
