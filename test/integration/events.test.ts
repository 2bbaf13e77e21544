import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { openSse, type SseClient } from '../support/sse-client.js';

const DATA_FIELDS = ['at', 'detail', 'kind', 'name', 'runId', 'seq', 'status', 'taskId', 'type'];

/** The run events a client received for the given runs, in arrival order. */
const eventsOf = (clients: SseClient[], runIds: string[]) =>
  clients.flatMap((c) => c.runEvents()).filter((e) => runIds.includes(e.data.runId as string));

describe('live run events over HTTP (file store)', () => {
  let running: RuntimeService;
  const clients: SseClient[] = [];
  const open = async (path: string, headers: Record<string, string> = bearer(TEST_KEYS.viewer)) => {
    const client = await openSse(`${running.service.url}${path}`, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    running = await startRuntimeService({ concurrency: 4, eventStreams: { maxPerKey: 3, keepaliveSeconds: 0.2 } });
  }, 60_000);
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('follows a run from admission to its end: every stored event in order, then `end`, then the stream closes', async () => {
    const { api } = running;
    expect((await api.trigger('summarize-content', { idempotencyKey: 'ev-follow', content: 'follow me', sleepMs: 600 })).status).toBe(202);
    const client = await open('/api/tasks/runs/ev-follow/events');
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-store');
    expect(client.headers['x-request-id']).toBeTruthy();
    const end = await client.waitFor((f) => f.event === 'end', 20_000, 'end');
    await client.ended;

    const run = (await api.run('ev-follow')).body;
    expect(run.status).toBe('success');
    const got = client.runEvents();
    expect(got.map((e) => e.data.seq)).toEqual(run.events.map((e: { seq: number }) => e.seq));
    expect(got.map((e) => e.data.name)).toEqual(['admitted', 'started', 'succeeded']);
    expect(got.map((e) => e.data.status)).toEqual(['pending', 'running', 'success']);
    for (const event of got) {
      expect(Object.keys(event.data).sort()).toEqual(DATA_FIELDS);
      expect(event.data).toMatchObject({ runId: 'ev-follow', taskId: run.taskId, type: 'summarize-content' });
    }
    expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
    expect(JSON.parse(end.data)).toEqual({ runId: 'ev-follow', status: 'success' });
    expect(client.frames.at(-1)!.event).toBe('end');

    // Later: the same replay at once; resumed past the last event, only the end.
    const replay = await open('/api/tasks/runs/ev-follow/events');
    await replay.ended;
    expect(replay.runEvents()).toEqual(got);
    const resumed = await open('/api/tasks/runs/ev-follow/events', { ...bearer(TEST_KEYS.viewer), 'last-event-id': got.at(-1)!.id });
    await resumed.ended;
    expect(resumed.runEvents()).toEqual([]);
    expect(resumed.frames.at(-1)!.event).toBe('end');
    const fromMiddle = await open('/api/tasks/runs/ev-follow/events', { ...bearer(TEST_KEYS.viewer), 'last-event-id': got[0]!.id });
    await fromMiddle.ended;
    expect(fromMiddle.runEvents()).toEqual(got.slice(1));
  }, 30_000);

  it('answers 404 for an unknown run and 400 for a Last-Event-ID it never sent, in the error shape', async () => {
    const missing = await open('/api/tasks/runs/no-such-run/events');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error).toMatchObject({ code: 'not_found' });
    const bad = await open('/api/events', { ...bearer(TEST_KEYS.viewer), 'last-event-id': 'not-an-id' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatchObject({ code: 'invalid_request', details: [{ path: '/headers/last-event-id' }] });
  });

  it('resumes /api/events with Last-Event-ID: every event of the runs written meanwhile, none repeated', async () => {
    const { api } = running;
    const first = await open('/api/events');
    await api.trigger('summarize-content', { idempotencyKey: 'ev-r1', content: 'one' });
    await first.waitFor((f) => f.event === 'run' && f.data.includes('"runId":"ev-r1"') && f.data.includes('"name":"succeeded"'), 20_000, 'ev-r1 to succeed');
    const lastId = first.lastId()!;
    first.close();
    for (const id of ['ev-r2', 'ev-r3']) await api.trigger('summarize-content', { idempotencyKey: id, content: id });
    await waitForTerminal(api, 'ev-r2');
    await waitForTerminal(api, 'ev-r3');
    const second = await open('/api/events', { ...bearer(TEST_KEYS.viewer), 'last-event-id': lastId });
    await api.trigger('summarize-content', { idempotencyKey: 'ev-r4', content: 'four' });
    await second.waitFor((f) => f.data.includes('"runId":"ev-r4"') && f.data.includes('"name":"succeeded"'), 20_000, 'ev-r4 live');

    const runIds = ['ev-r1', 'ev-r2', 'ev-r3', 'ev-r4'];
    const seen = eventsOf([first, second], runIds);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    for (const runId of runIds) {
      const stored = (await api.run(runId)).body.events.map((e: { seq: number }) => e.seq);
      expect(seen.filter((e) => e.data.runId === runId).map((e) => e.data.seq), runId).toEqual(stored);
    }
    // Internal runs (the startup run) stay out of the unfiltered stream.
    expect(second.runEvents().some((e) => e.data.type === 'startup')).toBe(false);
  }, 60_000);

  it('filters /api/events by type and status', async () => {
    const { api } = running;
    const failedOnly = await open('/api/events?type=summarize-content&status=failed');
    const otherType = await open('/api/events?type=doc-sync');
    await api.trigger('summarize-content', { idempotencyKey: 'ev-ok', content: 'fine' });
    await api.trigger('summarize-content', { idempotencyKey: 'ev-bad', content: 'refused', mode: 'logical-failure' });
    await waitForTerminal(api, 'ev-ok');
    expect((await waitForTerminal(api, 'ev-bad')).status).toBe('failed');
    await failedOnly.waitFor((f) => f.data.includes('"runId":"ev-bad"'), 20_000, 'the failed event');
    const got = failedOnly.runEvents();
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((e) => e.data.status === 'failed' && e.data.type === 'summarize-content')).toBe(true);
    expect(got.some((e) => e.data.runId === 'ev-ok')).toBe(false);
    expect(otherType.runEvents()).toEqual([]);
    const invalid = await open('/api/events?status=sideways');
    expect(invalid.status).toBe(400);
  }, 60_000);

  it('caps open streams per key with 429 in the error shape, and frees the slot when a stream closes', async () => {
    const admin = bearer(TEST_KEYS.admin);
    const held = [await open('/api/events', admin), await open('/api/events', admin), await open('/api/events', admin)];
    expect(held.map((c) => c.status)).toEqual([200, 200, 200]);
    const refused = await open('/api/events', admin);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({ code: 'rate_limited', details: { limit: 'eventStreams.maxPerKey', max: 3 } });
    // Another key has its own slots.
    expect((await open('/api/events', bearer(TEST_KEYS.operator))).status).toBe(200);
    held[0]!.close();
    let next: SseClient | null = null;
    for (let i = 0; i < 50 && next?.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      next = await open('/api/events', admin);
    }
    expect(next!.status).toBe(200);
  });

  it('takes keys from the Authorization header only, never from the query string', async () => {
    for (const query of [`apiKey=${TEST_KEYS.viewer}`, `access_token=${TEST_KEYS.viewer}`, `key=${TEST_KEYS.viewer}`]) {
      const res = await open(`/api/events?${query}`, {});
      expect(res.status, query).toBe(401);
      const perRun = await open(`/api/tasks/runs/ev-follow/events?${query}`, {});
      expect(perRun.status, query).toBe(401);
    }
    // With a key in the header, a key-like query parameter is an unknown field, not a second way in.
    expect((await open(`/api/events?apiKey=${TEST_KEYS.viewer}`)).status).toBe(400);
  });

  it('sends a keepalive comment on an idle stream at the configured interval', async () => {
    const idle = await open('/api/events?type=no-such-type');
    const keepalive = await idle.waitFor((f) => f.comment === 'keepalive', 5_000, 'a keepalive');
    expect(keepalive.comment).toBe('keepalive');
  });
});

describe('live run events across a restart (SQLite store)', () => {
  let running: RuntimeService | null = null;
  afterAll(async () => {
    await running?.service.kill();
  });

  it('resumes after the service was killed and started again: the events written before, during and after, none repeated', async () => {
    running = await startRuntimeService({ stateFile: 'sql:./state/events.sqlite', concurrency: 2 });
    const base = running.base;
    let { api } = running;
    const first = await openSse(`${running.service.url}/api/events`, bearer(TEST_KEYS.viewer));
    await api.trigger('summarize-content', { idempotencyKey: 'rs-1', content: 'before' });
    await first.waitFor((f) => f.data.includes('"runId":"rs-1"') && f.data.includes('"name":"succeeded"'), 20_000, 'rs-1');
    const lastId = first.lastId()!;
    first.close();
    await api.trigger('summarize-content', { idempotencyKey: 'rs-2', content: 'while away' });
    await waitForTerminal(api, 'rs-2');
    await running.service.kill();

    running = await startRuntimeService({ stateFile: 'sql:./state/events.sqlite', concurrency: 2 }, base);
    ({ api } = running);
    const second = await openSse(`${running.service.url}/api/events`, { ...bearer(TEST_KEYS.viewer), 'last-event-id': lastId });
    await api.trigger('summarize-content', { idempotencyKey: 'rs-3', content: 'after' });
    await second.waitFor((f) => f.data.includes('"runId":"rs-3"') && f.data.includes('"name":"succeeded"'), 20_000, 'rs-3');
    second.close();

    const runIds = ['rs-1', 'rs-2', 'rs-3'];
    const seen = eventsOf([first, second], runIds);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    for (const runId of runIds) {
      const stored = (await api.run(runId)).body.events.map((e: { seq: number }) => e.seq);
      expect(seen.filter((e) => e.data.runId === runId).map((e) => e.data.seq), runId).toEqual(stored);
    }
    expect(second.runEvents().some((e) => e.data.runId === 'rs-1')).toBe(false);
  }, 90_000);
});
