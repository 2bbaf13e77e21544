import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRouteTable } from '../../src/http/route-table.js';
import { authRoutes } from '../../src/http/routes/auth.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

/** GET with an explicit Host header (fetch does not let a caller set Host). */
function getWithHost(url: string, host: string): Promise<{ urls: Record<string, string | null> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ withMetricsServer: true });
  });
  afterAll(async () => {
    await h.close();
  });

  it('is public and reports healthy with helper URLs built from the request host', async () => {
    const res = await fetch(`${h.url}/health`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    const port = new URL(h.url).port;
    expect(body).toMatchObject({
      status: 'healthy',
      urls: {
        metrics: `http://127.0.0.1:${h.metricsServer!.port}/metrics`,
        knowledgeSummary: `http://127.0.0.1:${port}/api/knowledge/summary`,
        persistenceHealth: `http://127.0.0.1:${port}/api/persistence/health`,
        openapi: `http://127.0.0.1:${port}/api/openapi.json`,
      },
    });
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('uses the Host the caller addressed (for example through a port mapping)', async () => {
    const body = await getWithHost(`${h.url}/health`, 'localhost:4300');
    expect(body.urls.openapi).toBe('http://localhost:4300/api/openapi.json');
    expect(body.urls.metrics).toBe(`http://localhost:${h.metricsServer!.port}/metrics`);
  });

  it('keeps each caller its own helper URLs when hosts alternate (remembered per Host)', async () => {
    for (const host of ['localhost:4300', 'Example.TEST:8080', 'localhost:4300', '[::1]:9000', 'example.test:8080']) {
      const body = await getWithHost(`${h.url}/health`, host);
      const origin = new URL(`http://${host}`).origin;
      expect(body.urls.openapi).toBe(`${origin}/api/openapi.json`);
      expect(body.urls.knowledgeSummary).toBe(`${origin}/api/knowledge/summary`);
    }
    // More distinct hosts than it remembers: still every answer for its own host.
    for (let i = 0; i < 80; i++) {
      const body = await getWithHost(`${h.url}/health`, `host-${i}.test:${4000 + i}`);
      expect(body.urls.persistenceHealth).toBe(`http://host-${i}.test:${4000 + i}/api/persistence/health`);
    }
  });

  it('answers the JSON its fields serialize to, with the envelope headers', async () => {
    const res = await fetch(`${h.url}/health`, { headers: { 'x-request-id': 'health-probe-1' } });
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['status', 'timestamp', 'uptimeSeconds', 'urls']);
    expect(text).toBe(JSON.stringify(body));
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('health-probe-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('vary')).toBe('Origin');
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers.get(name)).toMatch(/^\d+$/);
  });
});

describe('GET /health with metrics disabled', () => {
  it('reports a null metrics URL', async () => {
    const h = await startHarness({ env: { PROMETHEUS_ENABLED: 'false' } });
    try {
      expect((await readJson(await fetch(`${h.url}/health`))).urls.metrics).toBeNull();
    } finally {
      await h.close();
    }
  });
});

describe('GET /api/persistence/health', () => {
  it('reports the active store, its health and the coordination status', async () => {
    const h = await startHarness();
    try {
      const res = await fetch(`${h.url}/api/persistence/health`);
      expect(res.status).toBe(200);
      const body = await readJson(res);
      expect(body).toMatchObject({
        status: 'healthy',
        activeStore: 'file',
        store: { target: '/tmp/orchestrator-state.json', status: 'ok', collections: { runs: 3 } },
        coordination: { status: 'ok', store: 'memory', redisConfigured: false, redisReachable: false },
      });
      expect(Number.isNaN(Date.parse(body.checkedAt))).toBe(false);
    } finally {
      await h.close();
    }
  });

  it('is degraded when the store is not ok, and names a document target as docdb', async () => {
    const h = await startHarness({
      storeHealth: { status: 'degraded', target: 'docdb:orchestrator', detail: 'slow', collections: {} },
    });
    try {
      const body = await readJson(await fetch(`${h.url}/api/persistence/health`));
      expect(body.status).toBe('degraded');
      expect(body.activeStore).toBe('docdb');
      expect(body.store.status).toBe('degraded');
    } finally {
      await h.close();
    }
  });
});

describe('buildRouteTable', () => {
  it('concatenates route families in order', () => {
    const table = buildRouteTable([authRoutes(), []]);
    expect(table.map((r) => r.operationId)).toEqual(['getAuthIdentity']);
  });

  it('rejects the same method and path twice', () => {
    const [me] = authRoutes();
    expect(() => buildRouteTable([[me!], [{ ...me!, operationId: 'other' }]])).toThrow(/GET \/api\/auth\/me is declared twice/);
  });

  it('rejects the same operationId twice', () => {
    const [me] = authRoutes();
    expect(() => buildRouteTable([[me!], [{ ...me!, path: '/api/other' }]])).toThrow(/operationId getAuthIdentity/);
  });
});
