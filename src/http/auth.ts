import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { identityOf, keyUsable, roleAtLeast } from '../config/keys.js';
import type { ApiKeyEntry, Role } from '../config/types.js';
import type { Identity } from '../domain/identity.js';
import { isApprovalLink } from '../tokens/approval-links.js';
import { isScopedToken } from '../tokens/scoped-tokens.js';
import { describeScope, scopeAllows, scopeNeedsRunTags, type ReadTarget } from '../domain/token-scope.js';
import { HttpError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on protected routes; null everywhere else. */
    identity: Identity | null;
  }
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

// One-shot `hash`: every protected request hashes its bearer key, and a Hash object per call cost
// 2.6x as much.
const sha256 = (value: string) => hash('sha256', value, 'buffer');

export { identityOf } from '../config/keys.js';

const unauthorized = (message: string, challenge: string) =>
  new HttpError('unauthorized', message, { headers: { 'WWW-Authenticate': challenge } });

/**
 * Resolves a bearer token to its configured key. Both sides are hashed to equal-length digests and
 * compared with timingSafeEqual against every key, without stopping at a match, so neither the
 * key's content nor its position in the list shows in the timing. Unknown, expired and inactive
 * keys are refused alike, with the same message.
 */
export function createKeyVerifier(keys: ApiKeyEntry[], clock: Clock) {
  const digests = keys.map((entry) => ({ entry, digest: sha256(entry.secret) }));

  return function verify(authorization: string | undefined): Identity {
    if (authorization === undefined || authorization === '') {
      throw unauthorized('This route needs an Authorization: Bearer <key> header', 'Bearer');
    }
    const match = BEARER.exec(authorization);
    if (!match) {
      throw unauthorized('The Authorization header must have the form "Bearer <key>"', 'Bearer error="invalid_request"');
    }
    const presented = sha256(match[1]!);
    let found: ApiKeyEntry | null = null;
    for (const { entry, digest } of digests) {
      if (timingSafeEqual(presented, digest) && found === null) found = entry;
    }
    const usable = found !== null && keyUsable(found, clock.now());
    if (!usable) throw unauthorized('The bearer key is not valid', 'Bearer error="invalid_token"');
    return identityOf(found!);
  };
}

/** A checker of one kind of signed credential (scoped tokens, approval links). */
export interface CredentialChecker {
  check(text: string): { ok: true; identity: Identity } | { ok: false; message: string } | Promise<{ ok: true; identity: Identity } | { ok: false; message: string }>;
}

/** Where a route accepts a credential besides the Authorization header. */
export interface CredentialPlaces {
  /** `?access_token=` may carry a scoped token (event streams: EventSource cannot set headers). */
  tokenInQuery?: boolean;
}

function queryToken(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.access_token;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * Resolves a request's credential. Scoped tokens and approval links are told from API keys by
 * their prefix: either may come as `Authorization: Bearer`, an approval link also as the
 * `X-Approval-Link` header the console sends, a scoped token also as `?access_token=` where the
 * route allows it. A full API key is never taken from a query string, where it would reach
 * proxies' logs and browsers' histories.
 */
export function createCredentialVerifier(
  verifyKey: ReturnType<typeof createKeyVerifier>,
  checkers: { tokens?: CredentialChecker | null; links?: CredentialChecker | null },
) {
  async function checkWith(checker: CredentialChecker | null | undefined, text: string): Promise<Identity> {
    if (!checker) throw unauthorized('This service accepts no such credential', 'Bearer error="invalid_token"');
    const checked = await checker.check(text);
    if (!checked.ok) throw unauthorized(checked.message, 'Bearer error="invalid_token"');
    return checked.identity;
  }

  return async function verify(request: FastifyRequest, places: CredentialPlaces): Promise<Identity> {
    const header = headerValue(request, 'authorization');
    const bearer = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (bearer !== undefined && isScopedToken(bearer)) return checkWith(checkers.tokens, bearer);
    if (bearer !== undefined && isApprovalLink(bearer)) return checkWith(checkers.links, bearer);
    if (header === undefined) {
      const link = headerValue(request, 'x-approval-link');
      if (link !== undefined) return checkWith(checkers.links, link);
      const fromQuery = places.tokenInQuery ? queryToken(request) : undefined;
      if (fromQuery !== undefined) {
        if (!isScopedToken(fromQuery)) {
          throw unauthorized('Only a scoped token (POST /api/tokens) may travel in access_token; an API key goes in the Authorization header', 'Bearer error="invalid_request"');
        }
        return checkWith(checkers.tokens, fromQuery);
      }
    }
    return verifyKey(header);
  };
}

export type CredentialVerifier = ReturnType<typeof createCredentialVerifier>;

/** What the scope check may read of the service (a `tag` token's run: its tags). */
export interface ScopeLookups {
  /** The run's tags, or null when there is no such run; absent: a `tag` token reads no single run. */
  runTags?: (runId: string) => Promise<readonly string[] | null>;
}

/** What a protected route tells authentication besides its role. */
export interface ProtectedRouteFacts extends CredentialPlaces {
  role: Role;
  /** What the request reads, for a scoped token's scope (absent: only `read` tokens pass). */
  tokenReads?: (request: { params: Record<string, string>; query: Record<string, unknown> }) => ReadTarget;
}

/**
 * onRequest hook of a protected route: authenticates before the body is read, checks the role
 * (viewer < operator < admin) and a scoped token's scope, attaches the identity and announces an
 * expiring credential's deadline.
 */
export function authenticateHook(verify: CredentialVerifier, route: ProtectedRouteFacts, lookups: ScopeLookups = {}) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const identity = await verify(request, route);
    request.identity = identity;
    if (identity.apiKeyExpiresAt !== null) reply.header('X-API-Key-Expires', identity.apiKeyExpiresAt);
    if (!roleAtLeast(identity.role, route.role)) {
      throw new HttpError('forbidden', `This route needs the ${route.role} role; the ${identity.token ? 'token' : 'key'} has ${identity.role}`);
    }
    if (identity.token !== undefined) {
      let target = route.tokenReads?.({
        params: (request.params ?? {}) as Record<string, string>,
        query: (request.query ?? {}) as Record<string, unknown>,
      });
      if (scopeNeedsRunTags(identity.token.scope, target)) {
        // A run tag is set at admission and never changes, so the run's tags read now hold for the whole answer (a stream's too).
        target = { ...target, tags: lookups.runTags ? await lookups.runTags(target.runId) : null };
      }
      if (!scopeAllows(identity.token.scope, target)) {
        const what = identity.token.scope.kind === 'approval' ? 'approval link' : 'token';
        throw new HttpError('forbidden', `This ${what} is for ${describeScope(identity.token.scope)} only`);
      }
    }
  };
}
