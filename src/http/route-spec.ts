import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { RateLimitBucket } from '../config/schema.js';
import type { Role } from '../config/types.js';

/** Who made a protected request; always derived from the bearer key, never from a body. */
export interface Identity {
  actor: string;
  role: Role;
  apiKeyLabel: string;
  apiKeyExpiresAt: string | null;
}

export type PublicBucket = Extract<RateLimitBucket, 'health-public' | 'docs-public' | 'proof-public'>;
export type ProtectedBucket = Extract<RateLimitBucket, 'viewer-read' | 'operator-write' | 'admin-export'>;

export type RouteAccess =
  | { kind: 'public'; bucket: PublicBucket }
  | { kind: 'protected'; role: Role; bucket: ProtectedBucket; companionView?: boolean }
  /** HMAC-signed ingest (the alert webhook): no bearer key, the per-IP abuse guard applies. */
  | { kind: 'signed' };

export interface RouteContext<Q = unknown, P = unknown, B = unknown> {
  identity: Identity | null;
  requestId: string;
  query: Q;
  params: P;
  body: B;
  request: FastifyRequest;
}

export interface RouteReply {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteSchemas {
  querystring?: TSchema;
  params?: TSchema;
  body?: TSchema;
  /** Documented responses by status code (errors are added from the access kind automatically). */
  response: Record<number, TSchema>;
}

/**
 * One entry of the declarative route table. Auth, role check, limiter bucket, cache, validation
 * and the OpenAPI operation (with `x-svc-access`) are all derived from this one record.
 */
export interface RouteSpec {
  method: 'GET' | 'POST';
  /** Fastify path syntax, e.g. `/api/tasks/runs/:runId`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: RouteAccess;
  /** Cached read: entries carry these tags; a state write bumping any tag invalidates them. */
  cache?: { tags: string[] | ((ctx: RouteContext) => string[]); maxAgeSeconds?: number };
  schema: RouteSchemas;
  // Handlers receive validated input; `any` keeps the table homogeneous while each handler
  // declares its own typed context.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (ctx: RouteContext<any, any, any>) => Promise<RouteReply>;
}
