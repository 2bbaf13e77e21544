/** `redis://host:port/db` of a KV store URL with any user name and password left out, for logs and status. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || '6379';
    const db = parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : '';
    return `${parsed.protocol}//${parsed.hostname}:${port}${db}`;
  } catch {
    return 'an unparsable KV_STORE_URL';
  }
}
