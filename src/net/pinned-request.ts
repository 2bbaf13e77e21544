import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { normalizeHost } from './host-name.js';

/** What one pinned request sends besides its URL. */
export interface PinnedInit {
  /** GET when absent. */
  method?: string;
  headers: Readonly<Record<string, string>>;
  body?: Uint8Array | null;
  /** The fetch's deadline: aborting it ends the connection, the request and the body. */
  signal: AbortSignal;
}

/**
 * Sends one request for `url` over a connection to one of `addresses` (the addresses the URL's
 * check vetted) and answers the response head with its body still streaming. It never
 * resolves the host name: the name only goes into the Host header and, for https, the TLS
 * server name the certificate is verified against. Redirects are returned, not followed.
 */
export type PinnedRequest = (url: URL, addresses: readonly string[], init: PinnedInit) => Promise<Response>;

function lookupError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ENOTFOUND' });
}

/**
 * A `lookup` for `net.connect` that answers `host` with the vetted `addresses` only (all of
 * them when asked for all, for the connection's address-family fallback) and refuses any other
 * name, so the socket can only go where the check said it may.
 */
export function pinnedLookup(host: string, addresses: readonly string[]): LookupFunction {
  const answers: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (hostname: string, options: LookupOptions, callback) => {
    if (normalizeHost(hostname) !== host) {
      process.nextTick(() => callback(lookupError(`${hostname} is not the pinned host ${host}`), '', 0));
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const fitting = family === 0 ? answers : answers.filter((entry) => entry.family === family);
    const first = fitting[0];
    process.nextTick(() => {
      if (first === undefined) callback(lookupError(`no vetted IPv${family} address for ${host}`), '', 0);
      else if (options.all === true) callback(null, fitting.map((entry) => ({ ...entry })));
      else callback(null, first.address, first.family);
    });
  };
}

/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The body as the client reads it: decompressed like fetch does for the codings it asks for. */
function decodedBody(response: IncomingMessage): Readable {
  const coding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : null;
  if (decoder === null) return response;
  return pipeline(response, decoder, () => {
    // Errors reach the reader through the decoder, which pipeline destroys with them.
  });
}

/** The node response as a WHATWG Response, so a reader treats it as fetch's. */
function toResponse(response: IncomingMessage): Response {
  const status = response.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
  const init = { status, statusText: response.statusMessage ?? '', headers };
  if (NULL_BODY_STATUSES.has(status)) {
    response.on('error', () => {});
    response.resume();
    return new Response(null, init);
  }
  return new Response(Readable.toWeb(decodedBody(response)) as ReadableStream<Uint8Array>, init);
}

/** The request function outward fetches run with: node:http(s) pinned to the vetted addresses. */
export const pinnedRequest: PinnedRequest = (url, addresses, { method = 'GET', headers, body = null, signal }) => {
  const host = normalizeHost(url.hostname);
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error);
    try {
      const request = send({
        protocol: url.protocol,
        host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method,
        headers: { 'accept-encoding': 'gzip, deflate, br', ...headers, ...(body !== null ? { 'content-length': String(body.byteLength) } : {}) },
        lookup: pinnedLookup(host, addresses),
        // A fresh connection per request: a pooled socket may not outlive the check that vetted it.
        agent: false,
        signal,
        // TLS: the name is what the certificate must match, whatever address the socket reached.
        ...(https && isIP(host) === 0 ? { servername: host } : {}),
      });
      request.on('error', fail);
      request.once('response', (response) => {
        try {
          resolve(toResponse(response));
        } catch (error) {
          response.destroy();
          fail(error);
        }
      });
      request.end(body ?? undefined);
    } catch (error) {
      fail(error);
    }
  });
};
