import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMIT_BUCKETS, type RateLimitBucket } from '../config/schema.js';
import type { AppConfig } from '../config/types.js';
import { MemoryCoordination } from '../coordination/memory.js';
import type { Coordination } from '../coordination/types.js';
import { HttpError } from './errors.js';
import { coordinationRateLimitStore } from './rate-limit-store.js';
import type { ProtectedBucket } from './route-spec.js';

const IDENTITY_BUCKETS: readonly RateLimitBucket[] = ['viewer-read', 'operator-write', 'admin-export'] satisfies ProtectedBucket[];

/** Who a bucket counts: identity buckets count the key's actor (else its label), all others the client IP. */
function subjectOf(bucket: RateLimitBucket, request: FastifyRequest): string {
  const identity = request.identity;
  if (IDENTITY_BUCKETS.includes(bucket) && identity) {
    return identity.actor ? `actor:${identity.actor}` : `key:${identity.apiKeyLabel}`;
  }
  // IPv6 clients are counted per /64, as the plugin does by default: one host usually holds a whole /64.
  return `ip:${fastifyRateLimit.normalizeIP(request.ip)}`;
}

export type RateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Registers @fastify/rate-limit (global off) and returns one onRequest hook per bucket.
 *
 * Each bucket has exactly one limiter shared by all its routes, so a bucket is one counter per
 * subject however many routes use it; the bucket name is part of every counter key, so buckets
 * never share counts. With the KV store the counters live in Redis (the coordination's client)
 * (through the coordination, see rate-limit-store.ts) and every instance sees the same numbers;
 * during a KV store outage they fall back to this process's memory. The limiter's result is turned into headers and the
 * 429 here rather than by the plugin's own hook, because a protected route passes two limiters
 * (abuse guard, then its bucket) and the plugin's hook runs only once per request.
 * If a counter call still fails the limiter lets the request through (skipOnError): an outage of
 * the coordination store degrades limits, not the API.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: AppConfig,
  coordination: Coordination,
): Promise<(bucket: RateLimitBucket) => RateLimitHook> {
  // With a KV store configured the counters go through the coordination (Redis, or memory during an outage).
  const shared = !(coordination instanceof MemoryCoordination);
  await app.register(fastifyRateLimit, {
    global: false,
    enableDraftSpec: true,
    skipOnError: true,
    cache: 10_000,
    ...(shared ? { store: coordinationRateLimitStore(coordination) } : {}),
  });

  const hooks = new Map<RateLimitBucket, RateLimitHook>();
  for (const bucket of RATE_LIMIT_BUCKETS) {
    const { max, windowSeconds } = config.rateLimits[bucket];
    const limiter = app.createRateLimit({
      max,
      timeWindow: windowSeconds * 1000,
      keyGenerator: (request) => `${bucket}|${subjectOf(bucket, request)}`,
      skipOnError: true,
    });
    hooks.set(bucket, async function enforceRateLimit(request, reply) {
      const result = await limiter(request);
      if (result.isAllowed) return;
      const resetSeconds = Math.max(1, result.ttlInSeconds);
      reply.header('ratelimit-limit', result.max);
      reply.header('ratelimit-remaining', result.remaining);
      reply.header('ratelimit-reset', resetSeconds);
      if (result.isExceeded) {
        throw new HttpError(
          'rate_limited',
          `Rate limit exceeded: ${max} requests per ${windowSeconds} s (${bucket}); retry after ${resetSeconds} s`,
          {
            details: { bucket, limit: max, windowSeconds, retryAfterSeconds: resetSeconds },
            headers: { 'Retry-After': String(resetSeconds) },
          },
        );
      }
    });
  }
  return (bucket) => hooks.get(bucket)!;
}
