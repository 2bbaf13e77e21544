import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/http-harness.js';

const TIGHT = { rateLimits: { 'health-public': { max: 2, windowSeconds: 60 } } };

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function healthFrom(forwardedFor: string): Promise<number> {
  return (await fetch(`${h!.url}/health`, { headers: { 'X-Forwarded-For': forwardedFor } })).status;
}

describe('trustProxy', () => {
  it('is off by default: X-Forwarded-For is ignored and per-IP limits count the socket address', async () => {
    h = await startHarness({ configFile: TIGHT });
    expect(h.config.trustProxy).toBe(false);
    expect([await healthFrom('203.0.113.1'), await healthFrom('203.0.113.2'), await healthFrom('203.0.113.3')]).toEqual([200, 200, 429]);
  });

  it('when on (TRUST_PROXY=true), per-IP limits see the client address the proxy forwards', async () => {
    h = await startHarness({ configFile: TIGHT, env: { TRUST_PROXY: 'true' } });
    expect([await healthFrom('203.0.113.1'), await healthFrom('203.0.113.2'), await healthFrom('203.0.113.1')]).toEqual([200, 200, 200]);
    expect(await healthFrom('203.0.113.1')).toBe(429);
    expect(await healthFrom('203.0.113.3')).toBe(200);
  });
});
