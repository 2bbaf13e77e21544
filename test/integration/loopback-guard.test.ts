import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** A feed on a public address: the service's guarded fetch allows it, the test's loopback guard must not. */
const PUBLIC_FEED = 'http://93.184.216.34/feed.xml';

describe('the loopback guard in a service a test starts', () => {
  let running: RuntimeService | undefined;
  afterAll(async () => {
    // Stopped already by the test; stopping again reports the same refusal, which is not this hook's business.
    await running?.service.kill().catch(() => undefined);
  });

  it('refuses the service a connection past loopback, and fails the test that stops it, naming the address', async () => {
    const base = tempDir('loopback-guard-it-');
    writeFileSync(join(base, 'feeds.json'), JSON.stringify({ feeds: [{ url: PUBLIC_FEED }] }));
    running = await startRuntimeService({ rssConfigPath: 'feeds.json' }, base);
    const admitted = await running.api.trigger<{ runId: string }>('rss-sweep', { idempotencyKey: 'guarded-sweep' });
    expect(admitted.status).toBe(202);
    const deadline = Date.now() + 15_000;
    let run: { status: string; error?: string } | undefined;
    while (Date.now() < deadline) {
      run = (await running.api.run<{ status: string; error?: string }>('guarded-sweep')).body;
      if (run.status !== 'pending' && run.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The sweep's own view: the connection failed, refused by the guard before it was opened.
    expect(JSON.stringify(run)).toContain('ERR_LOOPBACK_GUARD');
    await expect(running.service.kill()).rejects.toThrow(/the service tried to send traffic past loopback:\nloopback-guard: net\.Socket#connect to 93\.184\.216\.34:80 refused/);
  });
});
