import { afterEach, describe, expect, it } from 'vitest';
import { orch } from '../support/cli.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

/** A service stand-in answering one run's logs as the route does. */
async function serviceAnswering(runId: string, attempts: unknown[]): Promise<LoopbackServer> {
  return startLoopbackServer({ [`/api/tasks/runs/${runId}/logs`]: { contentType: 'application/json', body: JSON.stringify({ runId, attempts }) } });
}

let server: LoopbackServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('orch logs', () => {
  it('names every attempt that ran, saying which printed nothing', async () => {
    server = await serviceAnswering('r1', [
      { attemptId: 'r1#1', lines: [], truncated: 0 },
      { attemptId: 'r1#2', lines: [{ at: '2026-03-01T10:00:00.120Z', stream: 'stderr', line: 'second try' }], truncated: 0 },
    ]);
    const result = await orch(['logs', 'r1'], { ORCH_URL: server.url, ORCH_API_KEY: 'cli-logs-key-0001' });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(['# r1#1', '(printed nothing)', '# r1#2', expect.stringMatching(/^\d\d:\d\d:\d\d.* second try$/), '']);
  });

  it('says when no attempt has run yet', async () => {
    server = await serviceAnswering('r2', []);
    const result = await orch(['logs', 'r2'], { ORCH_URL: server.url, ORCH_API_KEY: 'cli-logs-key-0001' });
    expect(result).toMatchObject({ code: 0, stdout: 'No attempt has run yet.\n' });
  });
});
