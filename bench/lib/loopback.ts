/**
 * Every load target of the benchmark must be on the loopback interface. Each URL the suite
 * sends traffic to passes through `assertLoopback` first; anything else stops the run.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  if (LOOPBACK_HOSTS.has(host)) return true;
  // The whole 127.0.0.0/8 block is loopback.
  return /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host);
}

/** Throws unless `target` (http(s)://, redis://, postgres://) points at a loopback host. Returns it unchanged. */
export function assertLoopback(target: string): string {
  let host: string;
  try {
    host = new URL(target).hostname;
  } catch {
    throw new Error(`benchmark target is not a valid URL: ${target}`);
  }
  if (!isLoopbackHost(host)) {
    throw new Error(`benchmark target ${target} is not on loopback; the suite only loads 127.0.0.1`);
  }
  return target;
}
