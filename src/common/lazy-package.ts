import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is used instead of when the service starts: the
 * drivers of stores and services a deployment may never configure (PostgreSQL, Redis) and the
 * model provider's client each cost a start 100-300 ms of module loading for nothing
 * (docs/performance.md, start-up). Loaded synchronously, so a caller's code stays as it was.
 */
export function lazyPackage<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(specifier) as T);
}
