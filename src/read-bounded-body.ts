import type { IncomingMessage } from 'node:http';

/**
 * How much of a body past the limit is read and thrown away so that the 413 reaches the caller:
 * a socket closed while the caller still writes is reset, and the reset loses the answer. A
 * sender that goes on past this is not waited for: its connection is closed.
 */
const MAX_DISCARDED_BYTES = 1024 * 1024;

/** A body as text, or why there is none: over the limit (answer 413), or the connection failed. */
export type BoundedBody = { ok: true; text: string } | { ok: false; reason: 'too-large' | 'failed' };

/**
 * A plain node:http request's body as text, at most `maxBytes` of it kept. For the service's small
 * side listeners (the model channel, the bridge's HTTP adapter), which have no Fastify. A body
 * over the limit is read to its end without being kept (up to MAX_DISCARDED_BYTES more, then the
 * request is destroyed), so the caller can still be answered 413 on the same connection.
 */
export function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<BoundedBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes + MAX_DISCARDED_BYTES) {
        resolve({ ok: false, reason: 'too-large' });
        req.destroy();
      } else if (size <= maxBytes) {
        chunks.push(chunk);
      } else if (chunks.length > 0) {
        chunks.length = 0;
      }
    });
    req.on('end', () => resolve(size > maxBytes ? { ok: false, reason: 'too-large' } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ ok: false, reason: 'failed' }));
  });
}
