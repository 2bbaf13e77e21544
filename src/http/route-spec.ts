import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { RateLimitBucket } from '../config/schema.js';
import type { Role } from '../config/types.js';
import type { Identity } from '../domain/identity.js';
import type { ReadTarget } from '../domain/token-scope.js';

export type { Identity } from '../domain/identity.js';

export type PublicBucket = Extract<RateLimitBucket, 'health-public' | 'docs-public' | 'proof-public'>;
export type ProtectedBucket = Extract<RateLimitBucket, 'viewer-read' | 'operator-write' | 'admin-export'>;

export type ProtectedAccess = { kind: 'protected'; role: Role; bucket: ProtectedBucket; companionView?: boolean };
export type OpenAccess =
  | { kind: 'public'; bucket: PublicBucket }
  /** HMAC-signed ingest (the alert webhook): no bearer key, the per-IP abuse guard applies. */
  | { kind: 'signed' };
export type RouteAccess = ProtectedAccess | OpenAccess;

/**
 * What a handler receives. `identity` is the caller's on protected routes (authentication ran
 * before the handler) and null on public and signed ones; the route's access kind decides which
 * by type, so a protected handler never checks for null.
 */
export interface RouteContext<Q = unknown, P = unknown, B = unknown, I extends Identity | null = Identity | null> {
  identity: I;
  requestId: string;
  /** The request span's trace context (W3C traceparent) when tracing is on: work it admits continues it. */
  traceparent?: string | null;
  query: Q;
  params: P;
  body: B;
  request: FastifyRequest;
}

export interface RouteReply {
  statusCode?: number;
  body?: unknown;
  /** The body already serialized as JSON, sent as it is: used instead of `body`. */
  json?: string;
  headers?: Record<string, string>;
  /** A body sent as it is produced (never cached, never held whole): used instead of `body`. */
  stream?: { contentType: string; chunks: AsyncIterable<string> };
  /**
   * The response is handed over (server-sent events): the status line and headers (those the
   * access hooks set, `contentType`, X-Request-Id, Cache-Control: no-store) are written at once,
   * then `start` owns the response until it ends it or the client goes. A HEAD request gets the
   * head alone and `abandon` instead. Used instead of `body`.
   */
  takeover?: { contentType: string; start: (response: ServerResponse) => void; abandon: () => void };
}

export interface RouteSchemas {
  querystring?: TSchema;
  params?: TSchema;
  body?: TSchema;
  /** Documented responses by status code (errors are added from the access kind automatically). */
  response: Record<number, TSchema>;
}

/** A protected route's handler context: validated input plus a non-null identity. */
export type ProtectedContext<Q = unknown, P = unknown, B = unknown> = RouteContext<Q, P, B, Identity>;

// Handlers receive validated input; `any` keeps the table homogeneous while each handler
// declares its own typed context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler<I extends Identity | null> = (ctx: RouteContext<any, any, any, I>) => RouteReply | Promise<RouteReply>;

interface RouteSpecBase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify path syntax, e.g. `/api/tasks/runs/:runId`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Cached read: entries carry these tags; a state write bumping any tag invalidates them. */
  cache?: { tags: string[] | ((ctx: RouteContext) => string[]); maxAgeSeconds?: number };
  schema: RouteSchemas;
  /** Media type of the success body when it is not JSON (a streamed export). */
  produces?: string;
  /**
   * What the request reads, checked against a scoped token's scope (src/domain/token-scope.ts) before
   * the handler runs; a route that declares nothing is open to `read` tokens only.
   */
  tokenReads?: (request: { params: Record<string, string>; query: Record<string, unknown> }) => ReadTarget;
  /** A scoped token may come as `?access_token=` (event streams: EventSource sets no headers). */
  tokenInQuery?: boolean;
}

/**
 * One entry of the declarative route table. Auth, role check, limiter bucket, cache, validation
 * and the OpenAPI operation (with `x-svc-access`) are all derived from this one record.
 */
export type ProtectedRoute = RouteSpecBase & { access: ProtectedAccess; handler: Handler<Identity> };
export type OpenRoute = RouteSpecBase & { access: OpenAccess; handler: Handler<null> };
export type RouteSpec = ProtectedRoute | OpenRoute;

export const isProtectedRoute = (route: RouteSpec): route is ProtectedRoute => route.access.kind === 'protected';
