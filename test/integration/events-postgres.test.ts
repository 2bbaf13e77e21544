import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { seriesValue } from '../support/metrics-text.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { openSse, type SseClient } from '../support/sse-client.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: two instances on one PostgreSQL skipped';

describe.skipIf(!TEST_DATABASE_URL)(`live events across two instances on one PostgreSQL (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('events_two');
  const services: RuntimeService[] = [];
  const clients: SseClient[] = [];
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('delivers each instance’s events to the other’s clients within well under a second, every stored event in order', async () => {
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), concurrency: 2, logLevel: 'warn' };
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 2; i++) services.push(await startRuntimeService(config, tempDir(`orch-events-pg-${i}-`)));
    const [a, b] = services as [RuntimeService, RuntimeService];
    const onA = await openSse(`${a.service.url}/api/events`, bearer(TEST_KEYS.viewer));
    const onB = await openSse(`${b.service.url}/api/events`, bearer(TEST_KEYS.viewer));
    clients.push(onA, onB);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    // Both feeds are running (their first keepalive would be 15 s away; a first event proves it instead).
    await a.api.trigger('summarize-content', { idempotencyKey: 'warm-up', content: 'warm' });
    await onB.waitFor((f) => f.data.includes('"runId":"warm-up"'), 10_000, 'the warm-up on B');
    await onA.waitFor((f) => f.data.includes('"runId":"warm-up"'), 10_000, 'the warm-up on A');

    const latencies: number[] = [];
    for (const [writer, reader, runId] of [
      [a, onB, 'from-a'],
      [b, onA, 'from-b'],
      [a, onB, 'from-a-2'],
      [b, onA, 'from-b-2'],
    ] as const) {
      const sent = Date.now();
      expect((await writer.api.trigger('summarize-content', { idempotencyKey: runId, content: runId })).status).toBe(202);
      await reader.waitFor((f) => f.data.includes(`"runId":"${runId}"`) && f.data.includes('"name":"admitted"'), 10_000, `${runId} admitted`);
      latencies.push(Date.now() - sent);
    }
    // The feed's safety-net poll is one second: these came through LISTEN/NOTIFY.
    expect(Math.max(...latencies)).toBeLessThan(900);
    // Each instance's metrics show its channel listening and the other's announcements heard.
    for (const { service } of [a, b]) {
      const text = await (await fetch(service.metricsUrl!)).text();
      expect(text).toContain('orchestrator_event_channel_connected 1');
      expect(seriesValue(text, 'orchestrator_event_channel_announcements_total{direction="sent"}')).toBeGreaterThan(0);
      expect(seriesValue(text, 'orchestrator_event_channel_announcements_total{direction="received"}')).toBeGreaterThan(0);
      expect(seriesValue(text, 'orchestrator_event_channel_announcements_total{direction="failed"}')).toBe(0);
    }

    const runIds = ['warm-up', 'from-a', 'from-b', 'from-a-2', 'from-b-2'];
    for (const runId of runIds) await waitForTerminal(a.api, runId, 30_000);
    for (const client of [onA, onB]) {
      await client.waitFor(
        (_f, all) => runIds.every((id) => all.some((f) => f.data.includes(`"runId":"${id}"`) && f.data.includes('"name":"succeeded"'))),
        15_000,
        'every run to succeed',
      );
      const seen = client.runEvents().filter((e) => runIds.includes(e.data.runId as string));
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
      for (const runId of runIds) {
        const stored = (await a.api.run(runId)).body.events.map((e: { seq: number }) => e.seq);
        expect(seen.filter((e) => e.data.runId === runId).map((e) => e.data.seq), runId).toEqual(stored);
      }
    }
    // Both clients saw the same events in the same order: one commit order for the shared store.
    const order = (client: SseClient) => client.runEvents().filter((e) => runIds.includes(e.data.runId as string)).map((e) => e.id);
    expect(order(onA)).toEqual(order(onB));
  }, 120_000);
});
if (!TEST_DATABASE_URL) it.skip(SKIP_REASON, () => undefined);
