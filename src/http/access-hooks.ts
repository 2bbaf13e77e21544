import type { RateLimitBucket } from '../config/schema.js';
import { authenticateHook, type CredentialVerifier, type ScopeLookups } from './auth.js';
import type { RateLimitHook } from './rate-limits.js';
import type { RouteSpec } from './route-spec.js';

/**
 * The onRequest chain a route's access entry implies, in order. Everything here runs before the
 * body is read or validated:
 * - public: the route's bucket, per client IP;
 * - signed (HMAC ingest): the abuse guard per IP; the signature itself is the handler's to check,
 *   because it covers the raw body;
 * - protected: the abuse guard per IP (before any key is looked at, so guessing keys is limited
 *   too), then authentication, the role check and a scoped token's scope, then the route's bucket
 *   per actor.
 */
export function accessHooks(
  route: Pick<RouteSpec, 'access' | 'tokenReads' | 'tokenInQuery'>,
  limit: (bucket: RateLimitBucket) => RateLimitHook,
  verify: CredentialVerifier,
  lookups: ScopeLookups = {},
): RateLimitHook[] {
  const { access } = route;
  switch (access.kind) {
    case 'public':
      return [limit(access.bucket)];
    case 'signed':
      return [limit('abuse-guard')];
    case 'protected':
      return [limit('abuse-guard'), authenticateHook(verify, { role: access.role, tokenReads: route.tokenReads, tokenInQuery: route.tokenInQuery }, lookups), limit(access.bucket)];
  }
}
