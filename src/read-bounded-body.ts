import type { IncomingMessage } from 'node:http';

/**
 * A plain node:http request's body as text, or null when it is larger than `maxBytes` (the
 * request is then destroyed, so nothing more is read) or the connection fails. For the service's
 * small side listeners (the model channel, the bridge's HTTP adapter), which have no Fastify.
 */
export function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}
