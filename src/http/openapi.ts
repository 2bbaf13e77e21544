import type { TSchema } from 'typebox';
import { ErrorBodySchema } from './error-schema.js';
import type { RouteSpec } from './route-spec.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type Json = Record<string, unknown>;

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** A TypeBox schema as plain JSON Schema (OpenAPI 3.1 uses JSON Schema 2020-12 as is). */
const toJsonSchema = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const HEADERS: Record<string, Json> = {
  XRequestId: {
    description: 'Request id: the caller’s valid X-Request-Id echoed, else a new UUID. Also in logs and error bodies.',
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'Requests allowed in the current window of the bucket', schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Requests left in the current window', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  XApiKeyExpires: {
    description: 'Expiry of the bearer key used (ISO 8601); only for keys that expire',
    schema: { type: 'string', format: 'date-time' },
  },
  XSvcCache: { description: 'Whether the response came from the response cache', schema: { enum: ['hit', 'miss'] } },
  XSvcCacheStore: {
    description: 'Where the response cache lives: the shared key-value store or this process’s memory',
    schema: { enum: ['kvstore', 'memory'] },
  },
  CacheControl: {
    description: 'public, max-age=N for public cached reads; private, max-age=N (with Vary: Authorization) for protected ones',
    schema: { type: 'string' },
  },
  WwwAuthenticate: { description: 'Bearer challenge', schema: { type: 'string' } },
};

const rateLimitHeaders = {
  'ratelimit-limit': ref('headers', 'RateLimitLimit'),
  'ratelimit-remaining': ref('headers', 'RateLimitRemaining'),
  'ratelimit-reset': ref('headers', 'RateLimitReset'),
};

const errorResponse = (description: string, headers: Json = {}): Json => ({
  description,
  headers: { 'X-Request-Id': ref('headers', 'XRequestId'), ...headers },
  content: { 'application/json': { schema: ref('schemas', 'ErrorBody') } },
});

const ERROR_RESPONSES: Record<string, Json> = {
  BadRequest: errorResponse('The request failed validation (`invalid_request`); `details` lists each problem as {path, message}'),
  Unauthorized: errorResponse('Missing, malformed, unknown, expired or inactive bearer key (`unauthorized`)', {
    'WWW-Authenticate': ref('headers', 'WwwAuthenticate'),
  }),
  InvalidSignature: errorResponse('Missing, bad, stale or replayed signature (`invalid_signature`); nothing was ingested'),
  Forbidden: errorResponse('The key’s role is below the route’s (`forbidden`), or the Origin is not allowed (`origin_not_allowed`)'),
  OriginNotAllowed: errorResponse('The Origin is not on the CORS allowlist (`origin_not_allowed`)'),
  NotFound: errorResponse('No such resource (`not_found`)'),
  Conflict: errorResponse('The resource is not in a state that allows this (`conflict`)'),
  PayloadTooLarge: errorResponse('The body is over the size limit (`payload_too_large`)'),
  UnsupportedMediaType: errorResponse('The body is not application/json (`invalid_request`)'),
  RateLimited: errorResponse('Too many requests in the bucket’s window (`rate_limited`); wait Retry-After seconds', {
    'Retry-After': ref('headers', 'RetryAfter'),
    ...rateLimitHeaders,
  }),
  InternalError: errorResponse('Unexpected failure (`internal_error`); the log has details under the request id'),
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/** The error responses a route can produce, derived from its access kind and schemas. */
function errorResponsesFor(route: RouteSpec): Map<number, string> {
  const out = new Map<number, string>();
  const hasInput = route.schema.querystring || route.schema.params || route.schema.body;
  if (hasInput) out.set(400, 'BadRequest');
  if (route.access.kind === 'protected') out.set(401, 'Unauthorized');
  if (route.access.kind === 'signed') out.set(401, 'InvalidSignature');
  out.set(403, route.access.kind === 'protected' ? 'Forbidden' : 'OriginNotAllowed');
  if (route.path.includes(':')) out.set(404, 'NotFound');
  if (route.method === 'POST' || route.method === 'PATCH') {
    out.set(413, 'PayloadTooLarge');
    out.set(415, 'UnsupportedMediaType');
  }
  out.set(429, 'RateLimited');
  out.set(500, 'InternalError');
  return out;
}

function successHeaders(route: RouteSpec): Json {
  return {
    'X-Request-Id': ref('headers', 'XRequestId'),
    ...rateLimitHeaders,
    ...(route.access.kind === 'protected' ? { 'X-API-Key-Expires': ref('headers', 'XApiKeyExpires') } : {}),
    ...(route.cache
      ? {
          'X-Svc-Cache': ref('headers', 'XSvcCache'),
          'X-Svc-Cache-Store': ref('headers', 'XSvcCacheStore'),
          'Cache-Control': ref('headers', 'CacheControl'),
        }
      : {}),
  };
}

function responsesFor(route: RouteSpec): Json {
  const responses: Json = {};
  const automatic = errorResponsesFor(route);
  for (const [code, schema] of Object.entries(route.schema.response)) {
    const status = Number(code);
    if (status >= 400) {
      // Every error has the one ErrorBody shape, whatever a route wrote for it.
      const named = status === 409 ? 'Conflict' : automatic.get(status);
      responses[code] = named ? ref('responses', named) : errorResponse(`HTTP ${status}`);
      continue;
    }
    responses[code] = {
      description: STATUS_TEXT[status] ?? `HTTP ${status}`,
      headers: successHeaders(route),
      ...(status === 204 ? {} : { content: { [route.produces ?? 'application/json']: { schema: toJsonSchema(schema) } } }),
    };
  }
  for (const [status, name] of automatic) {
    if (!(String(status) in responses)) responses[String(status)] = ref('responses', name);
  }
  return responses;
}

function parametersFor(route: RouteSpec): Json[] {
  const parameters: Json[] = [];
  const params = route.schema.params ? toJsonSchema(route.schema.params) : null;
  const paramProps = (params?.properties ?? {}) as Record<string, Json>;
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    parameters.push({ name, in: 'path', required: true, schema: paramProps[name!] ?? { type: 'string' } });
  }
  if (route.schema.querystring) {
    const query = toJsonSchema(route.schema.querystring);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      const description = typeof schema.description === 'string' ? { description: schema.description } : {};
      parameters.push({ name, in: 'query', required: required.has(name), ...description, schema });
    }
  }
  if (route.access.kind === 'signed') {
    parameters.push(
      {
        name: 'X-Orchestrator-Signature',
        in: 'header',
        required: true,
        description: '`sha256=<hex>`: HMAC-SHA256 with WEBHOOK_SECRET over `<X-Orchestrator-Timestamp>.<raw body>`',
        schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      },
      {
        name: 'X-Orchestrator-Timestamp',
        in: 'header',
        required: true,
        description: 'Unix seconds; must be within 300 s of the service’s clock',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
    );
  }
  return parameters;
}

/** `x-svc-access`: the route's role and limiter bucket, straight from its table entry. */
function accessExtension(route: RouteSpec): Json {
  const { access } = route;
  switch (access.kind) {
    case 'protected':
      return {
        role: access.role,
        limiterBucket: access.bucket,
        ...(access.companionView ? { companionView: true } : {}),
      };
    case 'public':
      return { role: 'public', limiterBucket: access.bucket };
    case 'signed':
      return { role: 'signed', limiterBucket: 'abuse-guard' };
  }
}

function securityFor(route: RouteSpec): Json[] {
  switch (route.access.kind) {
    case 'protected':
      return [{ bearerAuth: [] }];
    case 'signed':
      return [{ webhookSignature: [] }];
    case 'public':
      return [];
  }
}

function operationFor(route: RouteSpec): Json {
  const parameters = parametersFor(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    security: securityFor(route),
    'x-svc-access': accessExtension(route),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.schema.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(route.schema.body) } } } }
      : {}),
    responses: responsesFor(route),
  };
}

/**
 * The OpenAPI 3.1 document, generated from the route table alone: the same entries that drive
 * authentication, limits, caching and validation produce the operations, so the document cannot
 * drift from what the server does. (Why not @fastify/swagger: see docs/http.md.)
 */
export function buildOpenApiDocument(routes: RouteSpec[], info: OpenApiInfo, taskTypeSchemas: Record<string, TSchema> = {}): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationFor(route) };
  }
  const tagNames = [...new Set(routes.flatMap((r) => r.tags))].sort();
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, ...(info.description ? { description: info.description } : {}) },
    tags: tagNames.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A configured API key (API_KEY_ROTATION / API_KEY). Roles: viewer < operator < admin.',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Orchestrator-Signature',
          description:
            'HMAC-SHA256 with WEBHOOK_SECRET over `<X-Orchestrator-Timestamp>.<raw body>`, sent as `sha256=<hex>`; the timestamp must be within 300 s and a signature is accepted once.',
        },
      },
      schemas: { ErrorBody: toJsonSchema(ErrorBodySchema), ...Object.fromEntries(Object.entries(taskTypeSchemas).map(([name, schema]) => [name, toJsonSchema(schema)])) },
      headers: HEADERS,
      responses: ERROR_RESPONSES,
    },
  };
}
