import { DEFAULT_ALLOWED_DOMAINS } from './allowlist.js';

/** What the operator allows this lane to reach. */
export interface ResearchSettings {
  allowPrivateHosts: boolean;
  allowedDomains: readonly string[];
  /** Where the settings came from, so the result can say which policy applied. */
  origin: 'service' | 'built-in';
}

/**
 * The lane cannot read the service configuration, so the service passes its marketResearch
 * settings in the reserved payload key `__marketResearch` (callers cannot set `__` keys: the
 * trigger route refuses them). Without that key the safe defaults apply: no private hosts and
 * the built-in allowlist. A malformed key never widens access: each bad field falls back to
 * its default.
 */
export function readSettings(payload: Readonly<Record<string, unknown>>): ResearchSettings {
  const raw = payload.__marketResearch;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { allowPrivateHosts: false, allowedDomains: DEFAULT_ALLOWED_DOMAINS, origin: 'built-in' };
  }
  const { allowPrivateHosts, allowedDomains } = raw as Record<string, unknown>;
  const domains =
    Array.isArray(allowedDomains) && allowedDomains.every((d) => typeof d === 'string')
      ? (allowedDomains as string[]).filter((d) => d.trim() !== '')
      : DEFAULT_ALLOWED_DOMAINS;
  return { allowPrivateHosts: allowPrivateHosts === true, allowedDomains: domains, origin: 'service' };
}
