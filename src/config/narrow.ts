import type { AppConfig } from './types.js';

/**
 * A copy of the configuration holding only `keys`: what a handler or a lane hook is bound to.
 * A copy, not a view, so the parts a module was not given (API keys, the webhook secret, other
 * modules' settings) are not reachable from it at all.
 */
export function narrowConfig<K extends keyof AppConfig>(config: AppConfig, keys: readonly K[]): Readonly<Pick<AppConfig, K>> {
  const narrowed = {} as Pick<AppConfig, K>;
  for (const key of keys) narrowed[key] = config[key];
  return Object.freeze(narrowed);
}
