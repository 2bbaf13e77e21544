import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCoordination } from '../../src/coordination/create.js';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('createCoordination', () => {
  it('uses memory, reported healthy and unconfigured, without a KV store URL', async () => {
    const { logger } = capturingLogger();
    const coordination = await createCoordination(null, logger);
    expect(coordination.kind).toBe('memory');
    expect(await coordination.status()).toMatchObject({ store: 'memory', status: 'ok', redisConfigured: false });
    await coordination.close();
  });

  it('falls back to degraded memory quickly when the KV store is unreachable, without leaking credentials', async () => {
    const { logger, lines } = capturingLogger();
    const port = await closedPort();
    const started = Date.now();
    const coordination = await createCoordination(`redis://user:s3cret-pass@127.0.0.1:${port}/2`, logger);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(coordination.kind).toBe('memory');
    const status = await coordination.status();
    expect(status).toMatchObject({ store: 'memory', status: 'degraded', redisConfigured: true, redisReachable: false });
    expect(status.detail).toContain(`127.0.0.1:${port}`);
    expect(status.detail).not.toContain('s3cret-pass');
    expect(lines.join('')).toContain('falling back to in-memory coordination');
    expect(lines.join('')).not.toContain('s3cret-pass');
    // The fallback still works as a coordination store.
    expect(await coordination.acquireLock('l', 'o', 1000)).toBe(true);
    await coordination.close();
  });

  describe.skipIf(!process.env.TEST_REDIS_URL)('with a reachable KV store (needs TEST_REDIS_URL)', () => {
    it('uses the kv store and reports it reachable', async () => {
      const { logger } = capturingLogger();
      const coordination = await createCoordination(process.env.TEST_REDIS_URL!, logger, { keyPrefix: 'orch-test-create:' });
      expect(coordination.kind).toBe('kvstore');
      expect(await coordination.status()).toMatchObject({
        store: 'kvstore',
        status: 'ok',
        redisConfigured: true,
        redisReachable: true,
      });
      await coordination.close();
    });
  });
});
