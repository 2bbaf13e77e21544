import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An incoming X-Request-Id is echoed only when it is this safe, bounded shape; otherwise a new id is made. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify `genReqId`: the caller's X-Request-Id when valid (so logs correlate across services), else a UUID. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}
