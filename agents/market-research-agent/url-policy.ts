import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { articleFor, nonPublicKind } from './address-policy.js';
import { allowlistEntryFor, normalizeHost } from './allowlist.js';
import type { ResearchSettings } from './settings.js';

/** Resolves a host name to all its addresses (dns.promises.lookup with `all: true`). */
export type Lookup = (host: string) => Promise<LookupAddress[]>;

/**
 * `addresses` are the addresses the check vetted: the request for this URL must connect to one
 * of them and must not resolve the name again (a second answer could differ: DNS rebinding).
 */
export type UrlVerdict =
  | { allowed: true; url: URL; addresses: string[] }
  | { allowed: false; refused: true; reason: string }
  | { allowed: false; refused: false; error: unknown };

function refuse(reason: string): UrlVerdict {
  return { allowed: false, refused: true, reason };
}

const PRIVATE_HINT = 'private hosts are not allowed (marketResearch.allowPrivateHosts is false)';

/** "localhost" and its subdomains always mean this machine, whatever DNS says. */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Decides whether the lane may fetch `raw`, before anything is sent. In order: a parseable
 * http(s) URL without credentials; a literal private address or localhost (refused by name, no
 * lookup needed); a host on the allowlist; then every address the host resolves to must be
 * public — one private answer is enough to refuse, because the HTTP client may pick any of them.
 * A lookup that fails (or answers nothing) is not a refusal but an error the caller reports as a
 * failed source. The allowed verdict carries the checked addresses for the connection to use.
 */
export async function checkUrl(raw: string, settings: ResearchSettings, lookup: Lookup): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(`not a valid absolute URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(`scheme ${url.protocol} is not allowed; only http and https are fetched`);
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('URLs carrying credentials are not fetched');
  }
  const host = normalizeHost(url.hostname);
  if (!settings.allowPrivateHosts) {
    if (isLocalhostName(host)) return refuse(`${host} is a loopback host name; ${PRIVATE_HINT}`);
    if (isIP(host) !== 0) {
      const kind = nonPublicKind(host);
      if (kind !== null) return refuse(`${host} is ${articleFor(kind)} ${kind} address; ${PRIVATE_HINT}`);
    }
  }
  if (allowlistEntryFor(host, settings.allowedDomains) === null) {
    return refuse(`${host} is outside the allowlist (${settings.allowedDomains.join(', ') || 'empty'})`);
  }
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : [...new Set((await lookup(host)).map((entry) => entry.address))];
  } catch (error) {
    return { allowed: false, refused: false, error };
  }
  if (addresses.length === 0) {
    return { allowed: false, refused: false, error: Object.assign(new Error(`${host} resolved to no address`), { code: 'ENOTFOUND' }) };
  }
  if (!settings.allowPrivateHosts) {
    for (const address of addresses) {
      const kind = nonPublicKind(address);
      if (kind !== null) return refuse(`${host} resolves to ${kind} address ${address}; ${PRIVATE_HINT}`);
    }
  }
  return { allowed: true, url, addresses };
}
