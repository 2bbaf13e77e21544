import { normalizeHost } from '../../src/net/host-name.js';

/**
 * The built-in allowlist: well-known public documentation, package and pricing sites. It applies
 * when the service passes no allowlist of its own. Each domain carries the subjects it is a good
 * source for and how to search it, so a source plan can be derived from a query.
 */
export interface KnownDomain {
  domain: string;
  /** Words of a query that make this domain a fitting source. */
  topics: readonly string[];
  /** The site's own search URL path, `{q}` standing for the encoded query; null when the site has none to link. */
  searchPath: string | null;
  /** Pages worth reading whatever the query says (pricing pages, overviews). */
  staticPaths: readonly string[];
  /** Fits any query when no topical domain does. */
  general: boolean;
}

export const KNOWN_DOMAINS: readonly KnownDomain[] = [
  {
    domain: 'en.wikipedia.org',
    topics: ['company', 'market', 'industry', 'history', 'overview', 'competitor', 'competitors', 'product', 'technology'],
    searchPath: '/w/index.php?search={q}',
    staticPaths: [],
    general: true,
  },
  {
    domain: 'developer.mozilla.org',
    topics: ['web', 'html', 'css', 'javascript', 'browser', 'http', 'api', 'dom', 'fetch'],
    searchPath: '/en-US/search?q={q}',
    staticPaths: [],
    general: false,
  },
  {
    domain: 'docs.github.com',
    topics: ['github', 'git', 'actions', 'ci', 'repository', 'repositories', 'pull', 'copilot', 'codespaces'],
    searchPath: '/en/search?query={q}',
    staticPaths: [],
    general: false,
  },
  {
    domain: 'github.com',
    topics: ['github', 'open-source', 'opensource', 'repository', 'repositories', 'plan', 'plans', 'pricing', 'seat', 'seats'],
    searchPath: '/search?q={q}&type=repositories',
    staticPaths: ['/pricing'],
    general: false,
  },
  {
    domain: 'www.npmjs.com',
    topics: ['npm', 'node', 'nodejs', 'package', 'packages', 'javascript', 'typescript', 'library', 'libraries'],
    searchPath: '/search?q={q}',
    staticPaths: [],
    general: false,
  },
  {
    domain: 'pypi.org',
    topics: ['python', 'pip', 'package', 'packages', 'library', 'libraries'],
    searchPath: '/search/?q={q}',
    staticPaths: [],
    general: false,
  },
  {
    domain: 'learn.microsoft.com',
    topics: ['azure', 'microsoft', 'windows', 'dotnet', '.net', 'cloud', 'office'],
    searchPath: '/en-us/search/?terms={q}',
    staticPaths: [],
    general: false,
  },
  {
    domain: 'aws.amazon.com',
    topics: ['aws', 'amazon', 'cloud', 'hosting', 'storage', 'compute', 'serverless', 'pricing', 'price', 'cost'],
    searchPath: null,
    staticPaths: ['/pricing/'],
    general: false,
  },
  {
    domain: 'stripe.com',
    topics: ['payment', 'payments', 'billing', 'checkout', 'subscription', 'subscriptions', 'invoice', 'pricing', 'fees'],
    searchPath: null,
    staticPaths: ['/pricing'],
    general: false,
  },
];

export const DEFAULT_ALLOWED_DOMAINS: readonly string[] = KNOWN_DOMAINS.map((entry) => entry.domain);

/**
 * The allowlisted domain that covers `host`: the domain itself or one of its subdomains
 * ("api.stripe.com" is covered by "stripe.com"). An IP literal on the list covers only itself.
 */
export function allowlistEntryFor(host: string, allowedDomains: readonly string[]): string | null {
  const name = normalizeHost(host);
  for (const domain of allowedDomains) {
    const allowed = normalizeHost(domain);
    if (allowed === '') continue;
    if (name === allowed) return allowed;
    if (/^[\d.]+$/.test(allowed) || allowed.includes(':')) continue;
    if (name.endsWith(`.${allowed}`)) return allowed;
  }
  return null;
}

/** Why `host` is refused by the allowlist, or null when the allowlist covers it. */
export function allowlistRefusal(host: string, allowedDomains: readonly string[]): string | null {
  if (allowlistEntryFor(host, allowedDomains) !== null) return null;
  return `${host} is outside the allowlist (${allowedDomains.join(', ') || 'empty'})`;
}
