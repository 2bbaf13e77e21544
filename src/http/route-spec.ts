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

/**
 * The access levels routes are declared with, each written once: the role a caller needs and the
 * limiter bucket that counts the call (docs/http.md). Frozen: every route of a level shares it.
 */
export const viewerRead = Object.freeze({ kind: 'protected', role: 'viewer', bucket: 'viewer-read' } as const);
/** A read only operators may make (approvals, run logs, tokens), counted as a read. */
export const operatorRead = Object.freeze({ kind: 'protected', role: 'operator', bucket: 'viewer-read' } as const);
export const operatorWrite = Object.freeze({ kind: 'protected', role: 'operator', bucket: 'operator-write' } as const);
/** A write only admins may make (reloads of this instance's configuration), counted as a write. */
export const adminWrite = Object.freeze({ kind: 'protected', role: 'admin', bucket: 'operator-write' } as const);
export const adminExport = Object.freeze({ kind: 'protected', role: 'admin', bucket: 'admin-export' } as const);
export const healthPublic = Object.freeze({ kind: 'public', bucket: 'health-public' } as const);
export const docsPublic = Object.freeze({ kind: 'public', bucket: 'docs-public' } as const);
export const proofPublic = Object.freeze({ kind: 'public', bucket: 'proof-public' } as const);
export const signedIngest = Object.freeze({ kind: 'signed' } as const);

/** A route of a family as written: what the family does not already say. */
export type FamilyRoute<Route extends RouteSpec> = Omit<Route, 'method' | 'path' | 'tags' | 'access'>;

/** Routes sharing their OpenAPI tags and access, declared by method and path. */
export interface RouteFamily<Route extends RouteSpec> {
  get(path: string, route: FamilyRoute<Route>): Route;
  post(path: string, route: FamilyRoute<Route>): Route;
  patch(path: string, route: FamilyRoute<Route>): Route;
  delete(path: string, route: FamilyRoute<Route>): Route;
}

/**
 * A family of routes with the same tags and access: `routeFamily({ tags: ['alerts'], access: viewerRead })`
 * then `.get('/api/alerts', { operationId, summary, schema, handler })`. The access decides the
 * handler's identity by type, as on a RouteSpec; a file whose routes differ in access declares a
 * family for each.
 */
export function routeFamily(family: { tags: string[]; access: ProtectedAccess }): RouteFamily<ProtectedRoute>;
export function routeFamily(family: { tags: string[]; access: OpenAccess }): RouteFamily<OpenRoute>;
export function routeFamily(family: { tags: string[]; access: RouteAccess }): RouteFamily<RouteSpec> {
  const route = (method: RouteSpec['method']) => (path: string, rest: FamilyRoute<RouteSpec>) =>
    ({ method, path, ...rest, tags: [...family.tags], access: family.access }) as RouteSpec;
  return { get: route('GET'), post: route('POST'), patch: route('PATCH'), delete: route('DELETE') };
}
