import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

export interface RebindingDns {
  /** The same answers as a lane `Lookup` (dns.promises.lookup with `all: true`). */
  lookup(host: string): Promise<LookupAddress[]>;
  /** How many times `name` was resolved so far, through the lane's lookup or the process resolver. */
  calls(name: string): number;
  /** Puts the real resolver back. */
  restore(): void;
}

export interface RebindingDnsOptions {
  /** Names equal to or under this zone are answered by the test DNS ("rebinding.test"). */
  zone: string;
  /** The answer to the first resolution of each name: a public address. */
  firstAnswer: string;
  /** The answer to every later resolution of the same name. */
  rebindTo?: string;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS-rebinding resolver for test names (never a real DNS name): each name under `zone`
 * answers `firstAnswer` the first time it is resolved and `rebindTo` (loopback by default)
 * every time after. It is installed as the process resolver for those names (`dns.lookup`,
 * which `net.connect` and the global fetch use, and `dns.promises.lookup`), so any client that
 * resolves the name a second time hears the rebound answer, as it would from a real rebinding
 * DNS server. Other names still go to the real resolver. Call `restore()` after the test.
 */
export function installRebindingDns({ zone, firstAnswer, rebindTo = '127.0.0.1' }: RebindingDnsOptions): RebindingDns {
  const counts = new Map<string, number>();
  const owns = (host: string) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    return name === zone || name.endsWith(`.${zone}`);
  };
  const answer = (host: string): LookupAddress => {
    const name = host.toLowerCase().replace(/\.$/, '');
    const seen = counts.get(name) ?? 0;
    counts.set(name, seen + 1);
    const address = seen === 0 ? firstAnswer : rebindTo;
    return { address, family: isIP(address) };
  };

  const realLookup = dns.lookup;
  const realPromisesLookup = dns.promises.lookup;
  const fakeLookup = (host: string, optionsOrCallback: unknown, maybeCallback?: unknown): void => {
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback) as LookupCallback;
    if (!owns(host)) {
      Reflect.apply(realLookup, dns, [host, ...(typeof optionsOrCallback === 'function' ? [] : [optionsOrCallback]), callback]);
      return;
    }
    const options: LookupOptions = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? (optionsOrCallback as LookupOptions) : {};
    const entry = answer(host);
    process.nextTick(() => (options.all === true ? callback(null, [entry]) : callback(null, entry.address, entry.family)));
  };
  const fakePromisesLookup = async (host: string, options?: LookupOptions): Promise<unknown> => {
    if (!owns(host)) return Reflect.apply(realPromisesLookup, dns.promises, [host, options]);
    const entry = answer(host);
    return options?.all === true ? [entry] : entry;
  };
  Reflect.set(dns, 'lookup', fakeLookup);
  Reflect.set(dns.promises, 'lookup', fakePromisesLookup);

  return {
    lookup: async (host) => (owns(host) ? [answer(host)] : realPromisesLookup(host, { all: true })),
    calls: (name) => counts.get(name.toLowerCase()) ?? 0,
    restore: () => {
      Reflect.set(dns, 'lookup', realLookup);
      Reflect.set(dns.promises, 'lookup', realPromisesLookup);
    },
  };
}
