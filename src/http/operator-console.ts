import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import type { RateLimitHook } from './rate-limits.js';

/** The console's routes (registered below), for the server's 405 answers to other methods. */
export const CONSOLE_PATHS: ReadonlyArray<{ method: 'GET'; path: string }> = [
  { method: 'GET', path: '/operator' },
  { method: 'GET', path: '/operator/*' },
];

/**
 * The console's pages load only what the service itself serves: scripts, styles, images and API
 * calls from this origin, nothing inline, no framing.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** Hashed build output (`assets/<name>-<hash>.js`) never changes under one name. */
const ASSET_PREFIX = 'assets/';

/**
 * The file under the build directory a request path names, or null when it names none. The path
 * is normalized and must stay inside the directory: `..` segments never leave it.
 */
export function consoleFileFor(distDir: string, wildcard: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(wildcard);
  } catch {
    return null;
  }
  if (decoded === '' || decoded.includes('\0') || decoded.includes('\\')) return null;
  const normalized = posix.normalize(decoded).replace(/^\/+/, '');
  if (normalized === '' || normalized === '.' || normalized.startsWith('..') || normalized.split('/').some((s) => s.startsWith('.'))) {
    return null;
  }
  const file = join(distDir, normalized);
  try {
    return statSync(file).isFile() ? normalized : null;
  } catch {
    return null;
  }
}

function notBuilt(): HttpError {
  // The message names the build step, never the server's own paths.
  return new HttpError('unavailable', 'The operator console is not built (console/dist is missing); run npm run build:console');
}

/**
 * Serves the built operator console (console/dist) at /operator and /operator/*: files that exist
 * are sent as they are, any other path under /operator is a client-side route and gets
 * index.html (the single-page app's router takes it from there), except missing build assets,
 * which are 404. Public like the spec's route table says: no key, but the per-IP abuse guard
 * counts every request as it counts any unauthenticated one. GET only; /api is never touched.
 * Without a build the routes answer 503 `unavailable` rather than failing.
 */
export async function registerOperatorConsole(app: FastifyInstance, distDir: string, abuseGuard: RateLimitHook): Promise<void> {
  await app.register(async (scope) => {
    // Reply decoration only: the routes below decide what is served, so nothing is listed or globbed.
    await scope.register(fastifyStatic, { root: distDir, serve: false });
    scope.addHook('onRequest', abuseGuard);
    scope.addHook('onSend', async (_request, reply) => {
      for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) reply.header(name, value);
    });

    const sendIndex = (reply: FastifyReply) => {
      if (!existsSync(join(distDir, 'index.html'))) throw notBuilt();
      // The entry page names the current hashed assets: never cached (the server's no-store applies).
      return reply.type('text/html; charset=utf-8').sendFile('index.html', distDir, { cacheControl: false });
    };

    scope.get('/operator', async (_request, reply) => sendIndex(reply));
    scope.get('/operator/*', async (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
      const wildcard = request.params['*'] ?? '';
      const file = consoleFileFor(distDir, wildcard);
      if (file === 'index.html' || file === null) {
        if (wildcard.startsWith(ASSET_PREFIX)) throw new HttpError('not_found', `No console asset ${posix.basename(wildcard)}`);
        return sendIndex(reply);
      }
      return file.startsWith(ASSET_PREFIX)
        ? reply.sendFile(file, distDir, { maxAge: '365d', immutable: true })
        : reply.sendFile(file, distDir, { cacheControl: false });
    });
  });
}
