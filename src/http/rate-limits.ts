import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { RATE_LIMIT_BUCKETS, type RateLimitBucket } from '../config/schema.js';
import type { AppConfig } from '../config/types.js';
import { MemoryCoordination } from '../coordination/memory.js';
import type { Coordination } from '../coordination/types.js';
import { HttpError } from './errors.js';
import { FixedWindowCounter } from './window-counter.js';
import type { ProtectedBucket } from './route-spec.js';

const IDENTITY_BUCKETS: ReadonlySet<RateLimitBucket> = new Set<RateLimitBucket>(['viewer-read', 'operator-write', 'admin-export'] satisfies ProtectedBucket[]);

/** Subjects this process counts when no KV store shares them (the same bound the limiter always had). */
const LOCAL_SUBJECTS_MAX = 10_000;

/** Who a bucket counts: identity buckets count the key's actor (else its label), all others the client IP. */
function subjectOf(identityBucket: boolean, request: FastifyRequest): string {
  const identity = request.identity;
  if (identityBucket && identity) {
    return identity.actor ? `actor:${identity.actor}` : `key:${identity.apiKeyLabel}`;
  }
  const ip = request.ip;
  // IPv6 clients are counted per /64 (one host usually holds a whole /64); an IPv4 address is its own key.
  return ip.includes(':') ? `ip:${fastifyRateLimit.normalizeIP(ip)}` : `ip:${ip}`;
}

/** An onRequest hook in callback style: with counters in this process a pass completes without a promise or a microtask. */
export type RateLimitHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * One onRequest hook per bucket, each a single fixed-window counter update per request.
 *
 * A bucket is one counter per subject however many routes use it; the bucket name is part of
 * every counter key, so buckets never share counts. With a KV store configured the counters are
 * the coordination's windows (`incrementWindow`: one round trip, in Redis, shared by every
 * instance; in this process's memory during an outage). Without one they are a bounded map in
 * this process, updated in place. A protected route passes two limiters (abuse guard before
 * authentication, then its bucket per actor); each is one counter update. If a shared counter
 * call fails the request goes through: an outage of the coordination store degrades limits, not
 * the API.
 */
export function registerRateLimits(
  config: AppConfig,
  coordination: Coordination,
): (bucket: RateLimitBucket) => RateLimitHook {
  const shared = !(coordination instanceof MemoryCoordination);
  const local = new FixedWindowCounter(LOCAL_SUBJECTS_MAX);

  const hooks = new Map<RateLimitBucket, RateLimitHook>();
  for (const bucket of RATE_LIMIT_BUCKETS) {
    const { max, windowSeconds } = config.rateLimits[bucket];
    const windowMs = windowSeconds * 1000;
    const identityBucket = IDENTITY_BUCKETS.has(bucket);
    // The key of the shared counters is unchanged from earlier versions, so instances of both count together.
    const prefix = `ratelimit:${bucket}|`;

    const maxText = String(max);

    /** Sets the three headers; the 429 error when the window is spent, else undefined. */
    const verdict = (reply: FastifyReply, count: number, resetAt: number, now: number): HttpError | undefined => {
      const resetSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000));
      reply.header('ratelimit-limit', maxText);
      reply.header('ratelimit-remaining', String(Math.max(0, max - count)));
      reply.header('ratelimit-reset', String(resetSeconds));
      if (count <= max) return undefined;
      return new HttpError(
        'rate_limited',
        `Rate limit exceeded: ${max} requests per ${windowSeconds} s (${bucket}); retry after ${resetSeconds} s`,
        {
          details: { bucket, limit: max, windowSeconds, retryAfterSeconds: resetSeconds },
          headers: { 'Retry-After': String(resetSeconds) },
        },
      );
    };

    hooks.set(bucket, function enforceRateLimit(request, reply, done) {
      const key = prefix + subjectOf(identityBucket, request);
      if (!shared) {
        const now = Date.now();
        const window = local.increment(key, windowMs, now);
        done(verdict(reply, window.count, window.resetAt, now));
        return;
      }
      coordination.incrementWindow(key, windowMs).then(
        ({ count, resetAt }) => done(verdict(reply, count, resetAt, Date.now())),
        () => done(),
      );
    });
  }
  return (bucket) => hooks.get(bucket)!;
}
