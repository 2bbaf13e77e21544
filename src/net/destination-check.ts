import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { articleFor, type AddressPolicy } from './address-policy.js';
import { isLocalhostName, normalizeHost } from './host-name.js';

/** Resolves a host name to all its addresses (dns.promises.lookup with `all: true`). */
export type Lookup = (host: string) => Promise<LookupAddress[]>;

/** What one consumer of the guarded fetch allows. */
export interface DestinationRules {
  /** The operator allowed private hosts for this fetch (loopback, private networks, link-local, …). */
  allowPrivate: boolean;
  /** The setting that allows them, named in every refusal ("rssAllowPrivateHosts"). */
  privateSetting: string;
  /** A further check of each host a fetch reaches (market-research's allowlist): why it is refused, or null. */
  hostRefusal?: (host: string) => string | null;
}

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

/**
 * Decides whether a fetch may reach `raw`, before anything is sent. In order: a parseable
 * http(s) URL without credentials; a literal non-public address or localhost (refused by name,
 * no lookup needed); the consumer's own host check; then every address the host resolves to
 * must be public — one non-public answer is enough to refuse, because the connection may pick
 * any of them. A lookup that fails (or answers nothing) is not a refusal but an error the caller
 * reports as a failed fetch. The allowed verdict carries the checked addresses for the
 * connection to use (pinned-request.ts).
 */
export async function checkDestination(raw: string, rules: DestinationRules, lookup: Lookup, addressKind: AddressPolicy): Promise<UrlVerdict> {
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
  const hint = `private hosts are not allowed (${rules.privateSetting} is false)`;
  const host = normalizeHost(url.hostname);
  if (!rules.allowPrivate) {
    if (isLocalhostName(host)) return refuse(`${host} is a loopback host name; ${hint}`);
    if (isIP(host) !== 0) {
      const kind = addressKind(host);
      if (kind !== null) return refuse(`${host} is ${articleFor(kind)} ${kind} address; ${hint}`);
    }
  }
  const hostRefusal = rules.hostRefusal?.(host) ?? null;
  if (hostRefusal !== null) return refuse(hostRefusal);
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : [...new Set((await lookup(host)).map((entry) => entry.address))];
  } catch (error) {
    return { allowed: false, refused: false, error };
  }
  if (addresses.length === 0) {
    return { allowed: false, refused: false, error: Object.assign(new Error(`${host} resolved to no address`), { code: 'ENOTFOUND' }) };
  }
  if (!rules.allowPrivate) {
    for (const address of addresses) {
      const kind = addressKind(address);
      if (kind !== null) return refuse(`${host} resolves to ${kind} address ${address}; ${hint}`);
    }
  }
  return { allowed: true, url, addresses };
}
