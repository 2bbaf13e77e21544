import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDigest, type Digest } from '../../../src/lanes/send-digest/handler.js';
import type { OrchestratorState } from '../../../src/domain/orchestrator-state.js';
import { freshState, handlerInput } from '../../support/handlers.js';
import { handlerConfig } from '../../support/config.js';
import { POSIX } from '../../support/outside-files.js';
import { closedPortUrl, startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

let server: LoopbackServer;
/** The test target is on loopback, which the operator allows on purpose. */
const LOOPBACK_ALLOWED = { digestTargetAllowPrivateHosts: true };

beforeAll(async () => {
  server = await startLoopbackServer({
    '/hooks/digest?token=s3cret': { status: 204, body: '' },
    '/hooks/refuse': { status: 503, body: 'down' },
  });
});

afterAll(async () => {
  await server.close();
});

function stateWithHistory(): OrchestratorState {
  return {
    ...freshState(),
    tasksProcessed: 3,
    lastStartedAt: '2024-05-01T11:00:00.000Z',
    taskHistory: [
      { type: 'doc-sync', status: 'completed', timestamp: '2024-05-01T11:01:00.000Z', durationMs: 12 },
      { type: 'rss-sweep', status: 'error', timestamp: '2024-05-01T11:02:00.000Z', durationMs: 30, error: 'all 1 feeds failed' },
      { type: 'heartbeat', status: 'completed', timestamp: '2024-05-01T11:05:00.000Z', durationMs: 1 },
    ],
    rssDrafts: [
      { timestamp: 't', feedUrl: 'f', itemTitle: 'Hot', itemUrl: 'https://x.test/hot', publishedAt: 'p', relevanceScore: 80, urgency: 'high' },
      { timestamp: 't', feedUrl: 'f', itemTitle: 'Cold', itemUrl: 'https://x.test/cold', publishedAt: 'p', relevanceScore: 5, urgency: 'low' },
    ],
  };
}

describe('send-digest handler', () => {
  it('posts the digest as JSON to the configured loopback target', async () => {
    const config = handlerConfig({ digestTargetUrl: `${server.url}/hooks/digest?token=s3cret` , ...LOOPBACK_ALLOWED });
    const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));

    expect(outcome.status).toBe('completed');
    expect(outcome.result).toEqual({
      delivered: true,
      targets: [`webhook ${new URL(server.url).host}`],
      targetHost: new URL(server.url).host,
      itemCount: 4,
      statusCode: 204,
    });
    const request = server.received.find((r) => r.url === '/hooks/digest?token=s3cret')!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const digest = JSON.parse(request.body) as Digest;
    expect(digest).toMatchObject({
      kind: 'task-orchestrator-digest',
      generatedAt: '2024-05-01T12:00:00.000Z',
      tasksProcessed: 3,
      statusCounts: { completed: 2, error: 1, pending: 0 },
      highUrgencyDrafts: [{ itemTitle: 'Hot', itemUrl: 'https://x.test/hot', relevanceScore: 80 }],
    });
    expect(digest.recentTasks.map((t) => t.type)).toEqual(['doc-sync', 'rss-sweep', 'heartbeat']);
    expect(JSON.stringify(outcome)).not.toContain('s3cret');
  });

  it('honours historyLimit', async () => {
    const config = handlerConfig({ digestTargetUrl: `${server.url}/hooks/digest?token=s3cret` , ...LOOPBACK_ALLOWED });
    const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest', { historyLimit: 1 }));
    expect(outcome.result).toMatchObject({ itemCount: 2 });
  });

  it('refuses as a configuration problem without a notification target', async () => {
    // invalid_config is a refusal: the executor fails the run at once instead of retrying it.
    await expect(sendDigest(stateWithHistory(), handlerConfig(), handlerInput('send-digest'))).rejects.toMatchObject({
      code: 'invalid_config',
      message: 'no notification target configured (set digestTargetUrl or digestTargetFile)',
      details: [{ path: '/config/digestTargetUrl' }],
    });
  });

  it('fails with the status when the target refuses', async () => {
    const config = handlerConfig({ digestTargetUrl: `${server.url}/hooks/refuse` , ...LOOPBACK_ALLOWED });
    const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));
    expect(outcome).toEqual({ status: 'error', error: expect.stringContaining('answered HTTP 503') });
  });

  it('fails with the cause when the target is unreachable, without echoing the URL path', async () => {
    const config = handlerConfig({ digestTargetUrl: `${await closedPortUrl()}/hooks/x?token=s3cret` , ...LOOPBACK_ALLOWED });
    const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));
    expect(outcome.status).toBe('error');
    expect(outcome.error).toContain('ECONNREFUSED');
    expect(outcome.error).not.toContain('s3cret');
  });

  it('refuses a target that is not http(s), naming the setting', async () => {
    await expect(sendDigest(stateWithHistory(), handlerConfig({ digestTargetUrl: 'file:///etc/passwd' }), handlerInput('send-digest'))).rejects.toMatchObject({
      code: 'invalid_config',
      message: 'digestTargetUrl must be http or https, not file',
    });
  });

  it('refuses a target on loopback without digestTargetAllowPrivateHosts, sending it nothing, and posts with the setting', async () => {
    const targetUrl = `${server.url}/hooks/digest?token=s3cret`;
    const before = server.received.length;
    const refused = await sendDigest(stateWithHistory(), handlerConfig({ digestTargetUrl: targetUrl }), handlerInput('send-digest'));
    expect(refused).toEqual({
      status: 'error',
      error: `digest not delivered to ${new URL(server.url).host}: refused: 127.0.0.1 is a loopback address; private hosts are not allowed (digestTargetAllowPrivateHosts is false)`,
    });
    expect(server.received.length).toBe(before);

    const posted = await sendDigest(stateWithHistory(), handlerConfig({ digestTargetUrl: targetUrl, ...LOOPBACK_ALLOWED }), handlerInput('send-digest'));
    expect(posted).toMatchObject({ status: 'completed', result: { statusCode: 204 } });
    expect(server.received.slice(before).map((r) => [r.method, r.url])).toEqual([['POST', '/hooks/digest?token=s3cret']]);
  });

  it('appends the digest as one JSON line to the configured file target', async () => {
    const config = handlerConfig({ digestTargetFile: 'outbox/digests.jsonl' });
    const first = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));
    const second = await sendDigest(stateWithHistory(), config, handlerInput('send-digest', { historyLimit: 1 }));

    expect(first).toMatchObject({ status: 'completed', result: { delivered: true, targets: ['file digests.jsonl'], itemCount: 4 } });
    expect(second.status).toBe('completed');
    const lines = readFileSync(config.digestTargetFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Digest);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.statusCounts).toEqual({ completed: 2, error: 1, pending: 0 });
    expect(lines[0]!.highUrgencyDrafts.map((d) => d.itemUrl)).toEqual(['https://x.test/hot']);
    expect(lines[1]!.recentTasks.map((t) => t.type)).toEqual(['heartbeat']);
    // the result names the file, never its absolute location
    expect(JSON.stringify(first)).not.toContain(config.baseDir);
  });

  it('delivers to both targets when both are configured, and fails naming the one that failed', async () => {
    const both = handlerConfig({ digestTargetUrl: `${server.url}/hooks/digest?token=s3cret`, digestTargetFile: 'digests.jsonl' , ...LOOPBACK_ALLOWED });
    const ok = await sendDigest(stateWithHistory(), both, handlerInput('send-digest'));
    expect(ok).toMatchObject({ status: 'completed', result: { targets: [`webhook ${new URL(server.url).host}`, 'file digests.jsonl'] } });
    expect(existsSync(both.digestTargetFile!)).toBe(true);

    const refused = handlerConfig({ digestTargetUrl: `${server.url}/hooks/refuse`, digestTargetFile: 'digests.jsonl' , ...LOOPBACK_ALLOWED });
    const outcome = await sendDigest(stateWithHistory(), refused, handlerInput('send-digest'));
    expect(outcome).toEqual({ status: 'error', error: expect.stringContaining('answered HTTP 503') });
    // the file target was still written
    expect(readFileSync(refused.digestTargetFile!, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  describe.skipIf(!POSIX)('a link at the digest file', () => {
    /** A file outside every configured folder, with a known content, and the digest target beside it. */
    function linkedTarget(plant: (target: string, outside: string) => void) {
      const config = handlerConfig({ digestTargetFile: 'outbox/digests.jsonl' });
      const outside = join(config.baseDir, 'elsewhere.txt');
      writeFileSync(outside, 'kept as it is\n');
      mkdirSync(dirname(config.digestTargetFile!), { recursive: true });
      plant(config.digestTargetFile!, outside);
      return { config, outside };
    }

    it('refuses a symbolic link and writes nothing through it', async () => {
      const { config, outside } = linkedTarget((target, outside) => symlinkSync(outside, target));
      const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));
      expect(outcome).toEqual({ status: 'error', error: expect.stringMatching(/^digestTargetFile refused: .*digests\.jsonl.* is a symbolic link/) });
      expect(readFileSync(outside, 'utf8')).toBe('kept as it is\n');
      expect(outcome.error).not.toContain(config.baseDir);
    });

    it('refuses a hard-linked file and writes nothing to it', async () => {
      const { config, outside } = linkedTarget((target, outside) => linkSync(outside, target));
      const outcome = await sendDigest(stateWithHistory(), config, handlerInput('send-digest'));
      expect(outcome).toEqual({
        status: 'error',
        error: 'digestTargetFile refused: digest file digests.jsonl is a hard link (2 links): its content may live outside the workspace; not written',
      });
      expect(readFileSync(outside, 'utf8')).toBe('kept as it is\n');
    });
  });
});
