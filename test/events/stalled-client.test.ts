import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/domain/run-record.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import { withEvent } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { serveEventRoutes, testHub } from '../support/event-streams.js';
import { TEST_KEYS } from '../support/keys.js';
import { makeRun } from '../support/runs.js';
import { openSse, splitSseFrames } from '../support/sse-client.js';

const AT = new Date('2026-01-01T00:00:00Z');
const BOUND = 64 * 1024;
/** Large events: the kernel's socket buffers (several MiB on loopback) fill in a few hundred. */
const DETAIL = 'x'.repeat(16 * 1024);

describe('a client that stops reading', () => {
  const cleanup: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const done of cleanup.splice(0).reverse()) await done();
  });

  it('is closed with a last error event once its unsent bytes would pass the bound, and the server never holds more for it', async () => {
    const store = new SqliteStateStore(join(tempDir('stalled-'), 'state.sqlite'));
    await store.open();
    const hub = testHub(store, { bufferBytes: BOUND });
    const { app, url } = await serveEventRoutes(hub);
    cleanup.push(() => store.close(), () => app.close(), () => hub.close());
    const serverSockets: Socket[] = [];
    app.server.on('connection', (socket: Socket) => serverSockets.push(socket));

    // A raw client that sends its request and never reads.
    const { port } = new URL(url);
    const client = connect(Number(port), '127.0.0.1');
    cleanup.push(() => void client.destroy());
    const received: Buffer[] = [];
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    client.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEYS.viewer}\r\n\r\n`);
    client.pause();
    client.on('data', (chunk: Buffer) => received.push(chunk));
    const closedByServer = new Promise<void>((resolve) => client.once('end', () => resolve()));
    await waitUntil(() => hub.openStreams === 1);

    // Writers append large events until the stream is dropped; the server side is sampled meanwhile.
    let maxHeld = 0;
    const sampler = setInterval(() => {
      for (const socket of serverSockets) maxHeld = Math.max(maxHeld, socket.writableLength);
    }, 1);
    let written = 0;
    let lastRun: RunRecord | null = null;
    while (hub.openStreams > 0 && written < 3000) {
      const runId = `big-${written}`;
      const result = await store.mutateRun(runId, () => withEvent(makeRun({ runId, taskId: runId }), AT, { kind: 'queue', name: 'admitted', detail: DETAIL }));
      lastRun = result.after;
      written += 1;
    }
    clearInterval(sampler);
    expect(hub.openStreams).toBe(0);
    expect(written).toBeLessThan(3000);
    // What the process held for the client never passed the bound (plus the small closing frame).
    expect(maxHeld).toBeGreaterThan(0);
    expect(maxHeld).toBeLessThanOrEqual(BOUND + 512);

    // Reading again, the client finds the events it was sent, then the reason, then the end.
    client.resume();
    await closedByServer;
    const text = Buffer.concat(received).toString('utf8');
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    const frames = splitSseFrames(dechunk(body)).frames;
    const last = frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ code: 'slow_consumer' });
    const got = frames.filter((f) => f.event === 'run');
    expect(got.length).toBeGreaterThan(10);
    expect(got.length).toBeLessThan(written);

    // It resumes from the last id it got and receives the rest: nothing lost by the drop.
    const resumed = await openSse(`${url}/api/events`, { authorization: `Bearer ${TEST_KEYS.viewer}`, 'last-event-id': got.at(-1)!.id! });
    cleanup.push(() => resumed.close());
    await resumed.waitFor((f) => f.event === 'run' && JSON.parse(f.data).runId === lastRun!.runId, 20_000, 'the last event');
    const ids = [...got.map((f) => JSON.parse(f.data).runId), ...resumed.runEvents().map((e) => e.data.runId)];
    expect(ids).toEqual(Array.from({ length: written }, (_, i) => `big-${i}`));
  }, 120_000);

  it('keeps a client that reads, though one page of events is larger than the bound', async () => {
    const store = new SqliteStateStore(join(tempDir('large-page-'), 'state.sqlite'));
    await store.open();
    const hub = testHub(store, { bufferBytes: BOUND });
    const { app, url } = await serveEventRoutes(hub);
    cleanup.push(() => store.close(), () => app.close(), () => hub.close());
    const reader = await openSse(`${url}/api/events`, { authorization: `Bearer ${TEST_KEYS.viewer}` });
    cleanup.push(() => reader.close());
    await waitUntil(() => hub.openStreams === 1);
    // Written together: one commit, one page of 40 x 16 KiB, ten times the bound.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.mutateRun(`page-${i}`, () => withEvent(makeRun({ runId: `page-${i}`, taskId: `page-${i}` }), AT, { kind: 'queue', name: 'admitted', detail: DETAIL })),
      ),
    );
    await reader.waitFor((_f, all) => all.filter((f) => f.event === 'run').length === 40, 20_000, 'all 40 events');
    expect(reader.frames.some((f) => f.event === 'error')).toBe(false);
    expect(hub.openStreams).toBe(1);
  }, 60_000);
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The payload of a chunked HTTP/1.1 body. */
function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
