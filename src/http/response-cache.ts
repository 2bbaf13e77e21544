import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CacheConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { RouteContext, RouteSpec } from './route-spec.js';

/**
 * A response ready to send: a handler's reply rendered to text, or a cache hit, whose body is
 * the stored bytes themselves (no copy, and no encoding on the way to the socket).
 */
export interface CachedResponse {
  statusCode: number;
  contentType: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

const NEWLINE = 0x0a;

/**
 * A stored entry is one line of JSON metadata, a newline, then the body's bytes exactly as sent.
 * The body is never escaped into or parsed out of JSON, so a hit costs a lookup and a view of
 * the stored bytes however large the response (the metadata line cannot contain a raw newline:
 * JSON escapes it).
 */
export function encodeEntry(entry: CachedResponse): Buffer {
  const { body, ...meta } = entry;
  const head = Buffer.from(`${JSON.stringify(meta)}\n`);
  return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body) : body]);
}

export function decodeEntry(raw: Buffer): CachedResponse | null {
  const split = raw.indexOf(NEWLINE);
  if (split < 0) return null;
  const meta = JSON.parse(raw.toString('utf8', 0, split)) as Omit<CachedResponse, 'body'>;
  return { ...meta, body: raw.subarray(split + 1) };
}

/** Adds a field to Vary without dropping what is there (CORS adds Origin). */
export function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = new Set(
    String(current ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== ''),
  );
  fields.add(field);
  reply.header('Vary', [...fields].join(', '));
}

export function cacheMaxAge(route: RouteSpec, cache: CacheConfig): number {
  const fallback = route.access.kind === 'protected' ? cache.protectedMaxAgeSeconds : cache.publicMaxAgeSeconds;
  return route.cache?.maxAgeSeconds ?? fallback;
}

/**
 * The cached-read side of the response cache. A key is the hash of: method, URL (path and query),
 * the caller's role on protected routes (an admin may see more than a viewer), the request body for
 * cached POSTs, and the current generation of each of the route's tags. Bumping a tag therefore
 * changes the key, so invalidation needs no scan and works the same in memory and in Redis.
 */
export class ResponseCache {
  /**
   * `enabled: false` answers every cached route as a miss and stores nothing (its headers are
   * unchanged). The composition turns it off when no store shared by every instance can carry
   * invalidations: see `responseCacheSharing` in src/app.ts.
   */
  constructor(
    private readonly coordination: Coordination,
    private readonly config: CacheConfig,
    private readonly enabled = true,
  ) {}

  get storeLabel(): 'kvstore' | 'memory' {
    return this.coordination.kind;
  }

  async keyFor(route: RouteSpec, ctx: RouteContext, request: FastifyRequest): Promise<string> {
    if (!this.enabled) return '';
    const tags = typeof route.cache!.tags === 'function' ? route.cache!.tags(ctx) : route.cache!.tags;
    const generations = await this.coordination.tagVersions(tags);
    const scope = route.access.kind === 'protected' ? (ctx.identity?.role ?? 'none') : 'public';
    // The route's method, not the request's: a HEAD (the GET route's twin) shares the GET's
    // entries, whose status and headers are what it answers.
    const material = JSON.stringify([
      route.method,
      request.url,
      scope,
      route.method === 'GET' ? null : (ctx.body ?? null),
      tags.map((tag, i) => [tag, generations[i]]),
    ]);
    // One-shot `hash` (no Hash object): every cached read computes its key.
    return `response:${route.operationId}:${hash('sha256', material, 'hex')}`;
  }

  async read(key: string): Promise<CachedResponse | null> {
    if (!this.enabled) return null;
    const raw = await this.coordination.cacheGet(key);
    return raw === null ? null : decodeEntry(raw);
  }

  async write(key: string, route: RouteSpec, entry: CachedResponse): Promise<void> {
    if (!this.enabled) return;
    const ttl = cacheMaxAge(route, this.config);
    if (ttl > 0) await this.coordination.cacheSet(key, encodeEntry(entry), ttl);
  }

  /** Cache-Control (and Vary for protected reads) of a cacheable 200. */
  applyFreshnessHeaders(reply: FastifyReply, route: RouteSpec): void {
    const maxAge = cacheMaxAge(route, this.config);
    if (route.access.kind === 'protected') {
      reply.header('Cache-Control', `private, max-age=${maxAge}`);
      appendVary(reply, 'Authorization');
    } else {
      reply.header('Cache-Control', `public, max-age=${maxAge}`);
    }
  }
}
