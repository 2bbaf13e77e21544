import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logLevel: 'trace' });
});
afterAll(async () => {
  await h.close();
});

describe('request logging', () => {
  it('never writes a bearer key, whatever the request outcome', async () => {
    const keys = Object.values(TEST_KEYS);
    for (const key of keys) {
      await fetch(`${h.url}/api/auth/me`, { headers: bearer(key) });
      await fetch(`${h.url}/test/boom`, { headers: bearer(key) });
      await fetch(`${h.url}/test/export`, { headers: { ...bearer(key), 'x-api-key': key } });
    }
    await fetch(`${h.url}/test/notes`, {
      method: 'POST',
      headers: { ...bearer(TEST_KEYS.operator), 'content-type': 'application/json' },
      body: '{broken',
    });
    expect(h.logLines.length).toBeGreaterThan(10);
    const all = h.logLines.join('\n');
    for (const key of keys) expect(all).not.toContain(key);
    expect(all).not.toContain(TEST_WEBHOOK_SECRET);
  });

  it('censors a token sent as access_token in the logged URL, keeping the rest of the request line', async () => {
    const token = 'orct_eyJ2IjoxfQ.c2lnbmF0dXJlLW5vdC1sb2dnZWQ';
    await fetch(`${h.url}/api/auth/me?type=x&access_token=${token}&other=1`, { headers: { 'x-request-id': 'log-token-1' } });
    const incoming = h.logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === 'log-token-1' && l.msg === 'incoming request');
    expect(incoming.req).toMatchObject({ method: 'GET', url: '/api/auth/me?type=x&access_token=[redacted]&other=1', remoteAddress: '127.0.0.1' });
    expect(h.logLines.join('\n')).not.toContain(token);
  });

  it('tags request log lines with the request id sent back as X-Request-Id', async () => {
    const res = await fetch(`${h.url}/health`, { headers: { 'x-request-id': 'log-correlation-7' } });
    expect(res.headers.get('x-request-id')).toBe('log-correlation-7');
    const lines = h.logLines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'log-correlation-7');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.msg === 'request completed')).toBe(true);
  });
});

describe('createLogger redaction', () => {
  it('censors secret-bearing fields at any of the first three levels', () => {
    const out: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _e, done) {
          out.push(String(chunk));
          done();
        },
      }),
    );
    logger.info(
      {
        req: { headers: { authorization: `Bearer ${TEST_KEYS.admin}`, 'x-api-key': TEST_KEYS.viewer } },
        config: { webhookSecret: TEST_WEBHOOK_SECRET, apiKeys: [{ secret: TEST_KEYS.operator }] },
        entry: { key: TEST_KEYS.expiring, password: 'pw-123456', apiKey: 'ak-123456' },
        secret: 'top-level-secret',
        kept: 'visible',
      },
      'config loaded',
    );
    const line = out.join('');
    for (const value of [TEST_KEYS.admin, TEST_KEYS.viewer, TEST_KEYS.operator, TEST_KEYS.expiring, TEST_WEBHOOK_SECRET, 'pw-123456', 'ak-123456', 'top-level-secret']) {
      expect(line).not.toContain(value);
    }
    expect(JSON.parse(line)).toMatchObject({ level: 'info', kept: 'visible', msg: 'config loaded' });
  });
});
