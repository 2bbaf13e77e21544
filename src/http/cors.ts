import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CorsConfig } from '../config/types.js';
import { HttpError } from './errors.js';

const normalizeOrigin = (origin: string) => origin.trim().replace(/\/+$/, '').toLowerCase();

/** The service's own origin as the caller addressed it (scheme + Host header). */
function ownOrigin(request: FastifyRequest): string {
  return normalizeOrigin(`${request.protocol}://${request.host}`);
}

/**
 * CORS, deny by default. No Origin header: not a browser cross-origin request, nothing to decide.
 * The service's own origin (the console it serves): always allowed. Anything else must be listed
 * exactly in the allowlist; `*` in the list matches nothing, so a wildcard is never answered.
 * A refused origin gets 403 `origin_not_allowed`, for preflights and actual requests alike,
 * before authentication or rate limiting runs.
 */
export async function registerCors(app: FastifyInstance, cors: CorsConfig): Promise<void> {
  const allowed = new Set(cors.allowedOrigins.map(normalizeOrigin).filter((o) => o !== '*'));
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (origin === undefined) {
        callback(null, { origin: false });
        return;
      }
      const normalized = normalizeOrigin(origin);
      if (normalized !== ownOrigin(request) && !allowed.has(normalized)) {
        callback(new HttpError('origin_not_allowed', `Origin ${origin} is not allowed to call this service`));
        return;
      }
      callback(null, {
        origin,
        methods: cors.allowedMethods,
        allowedHeaders: cors.allowedHeaders,
        exposedHeaders: cors.exposedHeaders,
        credentials: cors.allowCredentials,
        ...(cors.maxAgeSeconds !== null ? { maxAge: cors.maxAgeSeconds } : {}),
        strictPreflight: false,
      });
    },
  });
}
