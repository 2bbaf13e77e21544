import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCiRunsClient, parseLatestRun } from '../../src/aggregates/code-host-client.js';
import { createCodeHostMonitor, readingOf } from '../../src/aggregates/code-host-monitor.js';
import type { CodeHostMonitorConfig } from '../../src/config/types.js';
import { testConfig } from '../support/config.js';
import { ciRuns, startFakeCiServer, type FakeCiServer } from '../support/fake-ci-server.js';

const TOKEN = 'ci-token-never-shown-0001';
const NOW = new Date('2026-03-01T12:00:00.000Z');

let ci: FakeCiServer;
beforeAll(async () => {
  ci = await startFakeCiServer({ status: 200, body: ciRuns({ name: 'build', status: 'completed', conclusion: 'success', html_url: 'http://ci.test/runs/1' }) });
});
afterAll(async () => {
  await ci.close();
});

function monitorConfig(overrides: Partial<CodeHostMonitorConfig> = {}): CodeHostMonitorConfig {
  return { enabled: true, apiBaseUrl: ci.url, repository: 'acme/widgets', branch: 'main', token: TOKEN, refreshSeconds: 60, timeoutMs: 2000, ...overrides };
}

describe('CI runs client against a local fake code host', () => {
  it('asks for the newest run of the branch with the token in the Authorization header only', async () => {
    ci.requests.length = 0;
    const client = createCiRunsClient({ apiBaseUrl: `${ci.url}/`, repository: 'acme/widgets', branch: 'release/1.x', token: TOKEN, timeoutMs: 2000 });
    const run = await client.latestRun();
    expect(run).toEqual({ workflowName: 'build', conclusion: 'success', status: 'completed', url: 'http://ci.test/runs/1', updatedAt: '2026-03-01T11:59:00Z' });
    expect(ci.requests).toHaveLength(1);
    expect(ci.requests[0]!.url).toBe('/repos/acme/widgets/actions/runs?branch=release%2F1.x&per_page=1');
    expect(ci.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(ci.requests[0]!.url).not.toContain(TOKEN);
  });

  it('sends no Authorization header without a token', async () => {
    ci.requests.length = 0;
    await createCiRunsClient({ apiBaseUrl: ci.url, repository: 'acme/widgets', branch: 'main', token: null, timeoutMs: 2000 }).latestRun();
    expect(ci.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('reads an empty run list as no run and refuses an answer without workflow_runs', () => {
    expect(parseLatestRun({ workflow_runs: [] })).toBeNull();
    expect(() => parseLatestRun({ message: 'Not Found' })).toThrow(
      expect.objectContaining({ code: 'unavailable', message: 'CI runs API answered without a workflow_runs list' }),
    );
  });
});

describe('code-host monitor', () => {
  it('is disabled by default: no request, status disabled', async () => {
    const config = testConfig().codeHostMonitor;
    expect(config.enabled).toBe(false);
    ci.requests.length = 0;
    const monitor = createCodeHostMonitor(config);
    expect((await monitor.refresh()).status).toBe('disabled');
    expect(monitor.current()).toMatchObject({ status: 'disabled', repository: null, branch: null, latestRun: { workflowName: null, conclusion: null, url: null } });
    expect(ci.requests).toHaveLength(0);
  });

  it('configured: reports the latest run of the branch', async () => {
    ci.answer = { status: 200, body: ciRuns({ name: 'ci', status: 'completed', conclusion: 'failure', html_url: 'http://ci.test/runs/7' }) };
    const monitor = createCodeHostMonitor(monitorConfig(), { now: () => NOW });
    const reading = await monitor.refresh();
    expect(reading).toEqual({
      status: 'failing',
      summary: 'ci concluded failure on main',
      repository: 'acme/widgets',
      branch: 'main',
      latestRun: { workflowName: 'ci', conclusion: 'failure', url: 'http://ci.test/runs/7' },
      checkedAt: NOW.toISOString(),
    });
    expect(monitor.current()).toEqual(reading);
  });

  it('failing code host: probe unavailable with the reason, never the token', async () => {
    ci.answer = { status: 502, body: { message: `bad gateway ${TOKEN}` } };
    const reading = await createCodeHostMonitor(monitorConfig(), { now: () => NOW }).refresh();
    expect(reading.status).toBe('unavailable');
    expect(reading.summary).toBe('probe unavailable: CI runs API answered HTTP 502');
    expect(JSON.stringify(reading)).not.toContain(TOKEN);

    ci.answer = { status: 200, body: 'not json' };
    expect((await createCodeHostMonitor(monitorConfig()).refresh()).summary).toBe('probe unavailable: CI runs API answered a body that is not JSON');
  });

  it('unreachable and slow code hosts: unavailable with the cause', async () => {
    const closed = await startFakeCiServer({ status: 200, body: {} });
    const url = closed.url;
    await closed.close();
    const refused = await createCodeHostMonitor(monitorConfig({ apiBaseUrl: url })).refresh();
    expect(refused).toMatchObject({ status: 'unavailable', summary: 'probe unavailable: network error ECONNREFUSED' });

    ci.answer = { status: 200, body: ciRuns({ name: 'ci', status: 'completed', conclusion: 'success', html_url: 'x' }), delayMs: 2000 };
    const slow = await createCodeHostMonitor(monitorConfig({ timeoutMs: 150 })).refresh();
    expect(slow).toMatchObject({ status: 'unavailable', summary: 'probe unavailable: request timed out' });
  });

  it('never waits on the request path: current() answers the cached reading and refreshes in the background', async () => {
    ci.answer = { status: 200, body: ciRuns({ name: 'ci', status: 'in_progress', conclusion: null, html_url: 'http://ci.test/runs/9' }), delayMs: 300 };
    const monitor = createCodeHostMonitor(monitorConfig());
    expect(monitor.current().status).toBe('pending');
    // The background refresh current() started lands without anyone awaiting it.
    await expect.poll(() => monitor.current().status, { timeout: 3000 }).toBe('running');
    expect(monitor.current().summary).toBe('ci is in_progress on main');
  });

  it('maps conclusions: success passing, skipped passing, cancelled failing, none no-runs', () => {
    const at = NOW.toISOString();
    const run = (conclusion: string | null) => ({ workflowName: 'w', conclusion, status: 'completed', url: null, updatedAt: null });
    expect(readingOf(run('success'), 'a/b', 'main', at).status).toBe('passing');
    expect(readingOf(run('skipped'), 'a/b', 'main', at).status).toBe('passing');
    expect(readingOf(run('cancelled'), 'a/b', 'main', at).status).toBe('failing');
    expect(readingOf(null, 'a/b', 'main', at)).toMatchObject({ status: 'no-runs', summary: 'no CI runs on a/b@main' });
  });

  it('config: enabled needs a base URL and repository; the token comes from CODE_HOST_TOKEN only', () => {
    expect(() => testConfig({ CODE_HOST_MONITOR_ENABLED: 'true' })).toThrow(/apiBaseUrl and repository/);
    const config = testConfig({
      CODE_HOST_MONITOR_ENABLED: 'true',
      CODE_HOST_API_URL: 'http://127.0.0.1:9/api',
      CODE_HOST_REPOSITORY: 'acme/widgets',
      CODE_HOST_TOKEN: TOKEN,
    }).codeHostMonitor;
    expect(config).toMatchObject({ enabled: true, apiBaseUrl: 'http://127.0.0.1:9/api', repository: 'acme/widgets', branch: 'main', token: TOKEN });
    expect(() => testConfig({ CODE_HOST_API_URL: 'ftp://x' })).toThrow(/http\(s\) URL/);
  });
});
