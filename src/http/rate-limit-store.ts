import type { Coordination } from '../coordination/types.js';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A @fastify/rate-limit store whose counters are the coordination's fixed windows: in Redis
 * (shared by every instance) while it is reachable, in this process's memory while it is not.
 * The limiter thus keeps limiting through a KV store outage instead of letting everything
 * through, and counts in Redis again once it is back.
 */
export function coordinationRateLimitStore(coordination: Coordination) {
  return class CoordinationRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      coordination.incrementWindow(`ratelimit:${key}`, timeWindow).then(
        ({ count, resetAt }) => callback(null, { current: count, ttl: Math.max(0, resetAt - Date.now()) }),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    /** Route-level children share the one store: every key already names its bucket. */
    child(): CoordinationRateLimitStore {
      return this;
    }
  };
}
