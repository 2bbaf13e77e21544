import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const HAVE_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A throwaway redis-server of this test's own on `port` (no persistence). */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor(
    async () => {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG' ? true : undefined;
      } catch {
        return undefined;
      } finally {
        client.disconnect();
      }
    },
    10_000,
    'redis-server to answer',
  );
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe.skipIf(!HAVE_REDIS_SERVER)(`service through a Redis outage${HAVE_REDIS_SERVER ? '' : ' (redis-server not installed: skipped)'}`, () => {
  let port: number;
  let redis: ChildProcess;
  let svc: RuntimeService;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    svc = await startRuntimeService({ kvStoreUrl: `redis://127.0.0.1:${port}`, kvKeyPrefix: `outage-${randomBytes(3).toString('hex')}:` });
  }, 60_000);
  afterAll(async () => {
    await svc?.service.kill();
    if (redis) await stopRedis(redis);
  });

  async function persistenceHealth() {
    const res = await fetch(`${svc.service.url}/api/persistence/health`);
    expect(res.status).toBe(200);
    return (await res.json()) as { coordination: { store: string; status: string; redisReachable: boolean; detail: string } };
  }

  /** A mixed round of reads and writes; returns the statuses seen and the cache store of the cached read. */
  async function round(tag: string): Promise<{ statuses: number[]; cacheStore: string | null }> {
    const statuses: number[] = [];
    statuses.push((await fetch(`${svc.service.url}/health`)).status);
    const runs = await fetch(`${svc.service.url}/api/tasks/runs?limit=5`, { headers: { authorization: `Bearer ${TEST_KEYS.viewer}` } });
    statuses.push(runs.status);
    const trigger = await svc.api.trigger('summarize-content', { idempotencyKey: `outage-${tag}`, content: tag });
    statuses.push(trigger.status);
    const duplicate = await svc.api.trigger('summarize-content', { idempotencyKey: `outage-${tag}`, content: tag });
    statuses.push(duplicate.status);
    statuses.push((await svc.api.get('/api/persistence/summary')).status);
    return { statuses, cacheStore: runs.headers.get('x-svc-cache-store') };
  }

  it('keeps serving on memory while Redis is down, reports it, and uses Redis again when it returns', async () => {
    const before = await round('before');
    expect(before.statuses).toEqual([200, 200, 202, 200, 200]);
    expect(before.cacheStore).toBe('kvstore');
    expect((await persistenceHealth()).coordination).toMatchObject({ store: 'kvstore', status: 'ok', redisReachable: true });

    await stopRedis(redis);
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await round(`during-${i}`);
      during.push(...r.statuses);
      if (i === 4) expect(r.cacheStore).toBe('memory');
    }
    expect(during.filter((s) => s >= 500)).toEqual([]);
    expect(during.filter((s) => s === 202)).toHaveLength(5);
    const degraded = await waitFor(async () => {
      const h = await persistenceHealth();
      return h.coordination.status === 'degraded' ? h : undefined;
    }, 10_000, 'degradation to be reported');
    expect(degraded.coordination).toMatchObject({ store: 'memory', redisReachable: false });
    expect(degraded.coordination.detail).toContain('in-process memory');
    expect((await waitForTerminal(svc.api, 'outage-during-4')).status).toBe('success');

    redis = await startRedis(port);
    await waitFor(async () => {
      const h = await persistenceHealth();
      return h.coordination.status === 'ok' && h.coordination.store === 'kvstore' ? h : undefined;
    }, 15_000, 'recovery to be reported');
    const after = await round('after');
    expect(after.statuses).toEqual([200, 200, 202, 200, 200]);
    await round('after-2');
    expect((await round('after-3')).cacheStore).toBe('kvstore');
    // Counters and dedupe live in the restarted Redis again.
    const client = new Redis({ port, host: '127.0.0.1' });
    try {
      expect((await client.keys('outage-*')).length).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });
});
