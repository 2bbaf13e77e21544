import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { EventChannel } from '../../src/events/event-channel.js';
import { RunEventHub, type LiveLogSource } from '../../src/events/run-event-hub.js';
import type { StreamSink } from '../../src/events/run-event-stream.js';
import { buildRouteTable } from '../../src/http/route-table.js';
import { eventRoutes } from '../../src/http/routes/events.js';
import { buildServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/metrics.js';
import type { StateStore } from '../../src/store/types.js';
import { testConfig } from './config.js';
import { splitSseFrames, type SseFrame } from './sse-client.js';

export const silentLogger = pino({ level: 'silent' });

/** A hub over `store` with test-sized defaults; `options` overrides any of them. */
export function testHub(
  store: StateStore,
  options: Partial<{ channel: EventChannel | null; maxStreamsPerKey: number; bufferBytes: number; keepaliveMs: number; pollIntervalMs: number; pageSize: number; liveLogs: LiveLogSource }> = {},
): RunEventHub {
  return new RunEventHub({
    store,
    channel: null,
    logger: silentLogger,
    maxStreamsPerKey: 1000,
    bufferBytes: 1024 * 1024,
    keepaliveMs: 60_000,
    ...options,
  });
}

/** A stream sink in memory: an always-reading client whose frames are parsed as they come. */
export class MemorySink implements StreamSink {
  readonly frames: SseFrame[] = [];
  ended = false;
  private text = '';
  private closeListener: (() => void) | null = null;
  private readonly waiters: Array<() => void> = [];

  write(chunk: Buffer): void {
    const split = splitSseFrames(this.text + chunk.toString('utf8'));
    this.text = split.rest;
    this.frames.push(...split.frames);
    for (const wake of this.waiters.splice(0)) wake();
  }

  batch(writes: () => void): void {
    writes();
  }

  flush(): void {}

  get bufferedBytes(): number {
    return 0;
  }

  async drained(): Promise<void> {}

  end(_options?: { dropAfterMs?: number }): void {
    this.ended = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  onClose(listener: () => void): void {
    this.closeListener = listener;
  }

  /** The client leaves. */
  leave(): void {
    this.closeListener?.();
  }

  /** `event: run` frames: ids and parsed data. */
  runEvents(): Array<{ id: string; data: Record<string, unknown> }> {
    return this.frames.filter((f) => f.event === 'run').map((f) => ({ id: f.id!, data: JSON.parse(f.data) as Record<string, unknown> }));
  }

  /** Resolves once `done` holds (checked after each write), rejects after `timeoutMs`. */
  until(done: () => boolean, timeoutMs = 10_000, what = 'the stream'): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; ${this.frames.length} frames`)), timeoutMs);
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        } else if (this.ended) {
          clearTimeout(timer);
          reject(new Error(`stream ended before ${what}: ${JSON.stringify(this.frames.slice(-3))}`));
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }
}

/** The event routes alone, served in-process over `hub` on 127.0.0.1 (test keys, limits raised). */
export async function serveEventRoutes(hub: RunEventHub): Promise<{ app: FastifyInstance; url: string }> {
  const config = testConfig();
  const routes = buildRouteTable([eventRoutes({ events: hub })]);
  const app = await buildServer(
    {
      config: { ...config, rateLimits: { ...config.rateLimits, 'viewer-read': { max: 1_000_000, windowSeconds: 60 }, 'abuse-guard': { max: 1_000_000, windowSeconds: 60 } } },
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      logger: silentLogger,
      metrics: createMetrics(),
    },
    routes,
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}
