/** Lower case, without a trailing dot or IPv6 brackets, so "Docs.GitHub.com." matches "docs.github.com". */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** "localhost" and its subdomains always mean this machine, whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}
