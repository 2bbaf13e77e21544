import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleFileFor } from '../../src/http/operator-console.js';
import { tempDir } from '../support/config.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/operator/assets/app-1a2b.js"></script></head><body><div id="root"></div></body></html>';

/** A stand-in for `vite build` output: the entry page, one hashed asset, one plain file. */
function fakeBuild(): string {
  const dir = tempDir('console-dist-');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-1a2b.js'), 'console.log("console");');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  return dir;
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h!.url}${path}`, { headers });

describe('operator console serving', () => {
  it('serves index.html for /operator and every client-side route, with a self-only CSP and no caching', async () => {
    h = await startHarness({ consoleDir: fakeBuild() });
    for (const path of ['/operator', '/operator/', '/operator/runs', '/operator/runs/approval-replay%3Aabc', '/operator/incidents/1234/history']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await res.text(), path).toBe(INDEX);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('serves hashed assets as immutable and answers 404 for a missing asset instead of the page', async () => {
    h = await startHarness({ consoleDir: fakeBuild() });
    const asset = await get('/operator/assets/app-1a2b.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    expect(await asset.text()).toBe('console.log("console");');

    const missing = await get('/operator/assets/gone-0000.js');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('not_found');

    const plain = await get('/operator/favicon.svg');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/svg/);
  });

  it('never serves dotfiles or anything outside the build directory', async () => {
    h = await startHarness({ consoleDir: fakeBuild() });
    for (const path of ['/operator/.env', '/operator/%2e%2e/%2e%2e/package.json', '/operator/..%2F..%2Fpackage.json']) {
      const res = await get(path);
      const text = await res.text();
      expect(text, path).not.toContain('SECRET');
      expect(text, path).not.toContain('task-orchestrator');
    }
  });

  it('is public (no key needed, a key changes nothing) and GET only (HEAD too); /api stays the API', async () => {
    h = await startHarness({ consoleDir: fakeBuild() });
    expect((await get('/operator/tasks', bearer(TEST_KEYS.viewer))).status).toBe(200);
    const head = await fetch(`${h.url}/operator/tasks`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
    const post = await fetch(`${h.url}/operator/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const api = await get('/api/unknown-route');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/json/);
  });

  it('counts console requests against the per-IP abuse guard', async () => {
    h = await startHarness({ consoleDir: fakeBuild(), configFile: { rateLimits: { 'abuse-guard': { max: 3, windowSeconds: 60 } } } });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await get('/operator/runs')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('answers 503 unavailable with a clear message when the console is not built', async () => {
    h = await startHarness({ consoleDir: join(tempDir('no-console-'), 'dist') });
    for (const path of ['/operator', '/operator/runs']) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toMatch(/console is not built/);
      expect(body.error.message).toContain('npm run build:console');
    }
  });
});

describe('consoleFileFor', () => {
  it('names files inside the build only', () => {
    const dir = fakeBuild();
    expect(consoleFileFor(dir, 'assets/app-1a2b.js')).toBe('assets/app-1a2b.js');
    expect(consoleFileFor(dir, 'favicon.svg')).toBe('favicon.svg');
    expect(consoleFileFor(dir, 'runs/abc')).toBeNull();
    expect(consoleFileFor(dir, '../index.html')).toBeNull();
    expect(consoleFileFor(dir, 'assets/../../x')).toBeNull();
    expect(consoleFileFor(dir, '.env')).toBeNull();
    expect(consoleFileFor(dir, 'assets')).toBeNull();
    expect(consoleFileFor(dir, '%E0%A4%A')).toBeNull();
  });
});
