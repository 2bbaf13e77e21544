import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Route {
  status?: number;
  contentType?: string;
  /** Further response headers (a redirect's location). */
  headers?: Record<string, string>;
  body: string;
}

export interface LoopbackServer {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Where the server listens: 127.0.0.1 on a free port unless a test needs another loopback address or a given port. */
export interface ListenAt {
  host?: string;
  port?: number;
}

/** A local HTTP server on loopback answering fixed routes and recording what it was sent. */
export async function startLoopbackServer(routes: Record<string, Route>, { host = '127.0.0.1', port: wanted = 0 }: ListenAt = {}): Promise<LoopbackServer> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const route = routes[req.url ?? ''];
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(route.status ?? 200, { 'content-type': route.contentType ?? 'application/xml', ...route.headers }).end(route.body);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(wanted, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nothing listens on: a port that was just bound and released. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
