import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { sendRaw, type RawResponse } from '../support/raw-client.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logLevel: 'debug' });
});
afterAll(async () => {
  await h.close();
});

const VIEWER = `Authorization: Bearer ${TEST_KEYS.viewer}\r\n`;
const OPERATOR = `Authorization: Bearer ${TEST_KEYS.operator}\r\n`;

/** A request line and headers (each ending in CRLF), closed by an empty line, then the body. */
const http11 = (requestLine: string, headers = '', body = '') => `${requestLine}\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n${body}`;

const postNote = (headers: string, body: string) => http11('POST /test/notes HTTP/1.1', `${OPERATOR}${headers}`, body);

/** The service's error shape: exactly {error: {code, message, requestId, details?}}, JSON, with the id of the header. */
function expectErrorShape(res: RawResponse, status: number, code: string): { code: string; message: string; details?: unknown } {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const requestId = res.headers['x-request-id'];
  expect(requestId).toBeTruthy();
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(['error']);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'requestId', 'details']).toContain(key);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.requestId).toBe(requestId);
  return body.error;
}

describe('raw requests: every answer at or above 400 is in the error shape with X-Request-Id', () => {
  const cases: Array<{ name: string; request: string | Buffer; status: number; code: string }> = [
    // Refused by the router before any route runs (frameworkErrors).
    { name: 'malformed percent-encoding in a path parameter', request: http11('GET /test/items/%E0%A4%A HTTP/1.1', VIEWER), status: 400, code: 'invalid_request' },
    { name: 'a lone % as the path', request: http11('GET /% HTTP/1.1'), status: 400, code: 'invalid_request' },
    { name: 'percent-encoding that is not UTF-8 in the path', request: http11('GET /test/items/%C3%28 HTTP/1.1', VIEWER), status: 400, code: 'invalid_request' },
    { name: 'a path segment over the router limit', request: http11(`GET /test/items/${'a'.repeat(3000)} HTTP/1.1`, VIEWER), status: 414, code: 'uri_too_long' },
    // Refused by the request guard.
    { name: 'malformed percent-encoding in the query string', request: http11('GET /health?x=%zz HTTP/1.1'), status: 400, code: 'invalid_request' },
    { name: 'percent-encoding that is not UTF-8 in the query string', request: http11('GET /test/items/abc?mode=%C3%28 HTTP/1.1', VIEWER), status: 400, code: 'invalid_request' },
    { name: 'HTTP/1.1 without a Host header', request: 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400, code: 'invalid_request' },
    // Refused by Node's HTTP parser (the server's clientError handler answers on the socket).
    {
      name: 'raw bytes that are not UTF-8 in the path',
      request: Buffer.concat([Buffer.from('GET /health/'), Buffer.from([0xc3, 0x28]), Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]),
      status: 400,
      code: 'invalid_request',
    },
    { name: 'a URL longer than the header limit', request: http11(`GET /health?${'a'.repeat(20_000)} HTTP/1.1`), status: 431, code: 'headers_too_large' },
    { name: 'a header over the limit', request: http11('GET /health HTTP/1.1', `X-Big: ${'b'.repeat(20_000)}\r\n`), status: 431, code: 'headers_too_large' },
    { name: 'a method that is not a token', request: http11('G@T /health HTTP/1.1'), status: 400, code: 'invalid_request' },
    { name: 'a method Node does not know', request: http11('FOO /health HTTP/1.1'), status: 400, code: 'invalid_request' },
    { name: 'a request line that is not HTTP', request: 'hello\r\n\r\n', status: 400, code: 'invalid_request' },
    { name: 'an unknown HTTP version', request: http11('GET /health HTTP/9.9'), status: 400, code: 'invalid_request' },
    { name: 'a space inside the path', request: http11('GET /hea lth HTTP/1.1'), status: 400, code: 'invalid_request' },
    { name: 'a header name with a space', request: http11('GET /health HTTP/1.1', 'Bad Header: y\r\n'), status: 400, code: 'invalid_request' },
    {
      name: 'Transfer-Encoding: chunked together with Content-Length',
      request: postNote('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n', '2\r\n{}\r\n0\r\n\r\n'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'a Transfer-Encoding other than chunked',
      request: postNote('Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n', '{}'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'a chunk size that is not hexadecimal',
      request: postNote('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'),
      status: 400,
      code: 'invalid_request',
    },
    { name: 'CONNECT (the service is no proxy)', request: 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n', status: 405, code: 'method_not_allowed' },
    // Refused by the routes' own parsing and routing.
    { name: 'a text/plain body', request: postNote('Content-Type: text/plain\r\nContent-Length: 2\r\n', '{}'), status: 415, code: 'unsupported_media_type' },
    { name: 'a Content-Type that does not parse', request: postNote('Content-Type: ;;;\r\nContent-Length: 2\r\n', '{}'), status: 415, code: 'unsupported_media_type' },
    { name: 'malformed JSON', request: postNote('Content-Type: application/json\r\nContent-Length: 5\r\n', '{"a":'), status: 400, code: 'invalid_request' },
    { name: 'a path with ..', request: http11('GET /api/../health HTTP/1.1'), status: 404, code: 'not_found' },
    { name: 'a path with //', request: http11('GET //health HTTP/1.1'), status: 404, code: 'not_found' },
    { name: 'an unknown route', request: http11('GET /no-such-route HTTP/1.1'), status: 404, code: 'not_found' },
    { name: 'OPTIONS without Origin (no CORS preflight)', request: http11('OPTIONS /health HTTP/1.1'), status: 404, code: 'not_found' },
    { name: 'a known path with a method it does not serve', request: http11('DELETE /health HTTP/1.1'), status: 405, code: 'method_not_allowed' },
  ];

  for (const { name, request, status, code } of cases) {
    it(`answers ${name} with ${status} ${code}`, async () => {
      expectErrorShape(await sendRaw(h.url, request), status, code);
    });
  }

  it('keeps a valid incoming X-Request-Id on an answer the router gives before routing', async () => {
    const res = await sendRaw(h.url, http11('GET /% HTTP/1.1', 'X-Request-Id: trace-bad-url-1\r\n'));
    expectErrorShape(res, 400, 'invalid_request');
    expect(res.headers['x-request-id']).toBe('trace-bad-url-1');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('logs what the HTTP parser refused under the request id it answered with', async () => {
    const res = await sendRaw(h.url, http11('G@T /health HTTP/1.1'));
    const requestId = res.headers['x-request-id'];
    const logged = h.logLines.map((line) => JSON.parse(line)).find((entry) => entry.reqId === requestId);
    expect(logged).toMatchObject({ msg: 'request refused by the HTTP parser', code: 'HPE_INVALID_METHOD' });
  });

  it('answers CONNECT with an empty Allow: no method is served on an authority', async () => {
    const res = await sendRaw(h.url, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n');
    expect(res.headers.allow).toBe('');
  });

  it('ignores a body sent with GET (it has no meaning there) and answers the GET', async () => {
    const res = await sendRaw(h.url, http11('GET /health HTTP/1.1', 'Content-Type: application/json\r\nContent-Length: 5\r\n', '{"a":'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).status).toBe('healthy');
  });
});
