import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: bulk cancel across two instances on one PostgreSQL skipped';
const TYPE = 'summarize-content';
const MATCHING = 1000;

interface BulkAnswer {
  matched: number;
  truncated: boolean;
  runs: Array<{ runId: string; outcome: string }>;
}

/** Runs `work` over `items`, at most `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map((item, j) => work(item, i + j)));
}

describe.skipIf(!TEST_DATABASE_URL)(`bulk cancel of ${MATCHING} runs by two instances at once (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('bulk_cancel');
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('cancels every matching run exactly once, leaves the others alone, and both instances agree', async () => {
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), concurrency: 2, logLevel: 'warn' };
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 2; i++) services.push(await startRuntimeService(config, tempDir(`orch-bulk-cancel-${i}-`)));
    const [a, b] = services as [RuntimeService, RuntimeService];

    // Held runs wait for an approval, so none starts before the cancel reaches it.
    const ids = Array.from({ length: MATCHING }, (_, i) => `bulk-shared-${String(i).padStart(4, '0')}`);
    await inBatches(ids, 25, async (id, i) => {
      const res = await (i % 2 === 0 ? a : b).api.trigger(TYPE, { content: 'Waits for a decision.', requiresApproval: true, idempotencyKey: id });
      expect(res.status, id).toBe(202);
    });
    const bystanders = ['bulk-keep-1', 'bulk-keep-2'];
    for (const id of bystanders) await a.api.trigger('doc-sync', { requiresApproval: true, idempotencyKey: id });

    // Both instances clear the same filter at the same time, each at most 500 runs per request,
    // until neither finds a match: the pages they pick overlap.
    const filter = { type: TYPE, queueState: 'awaiting-approval' };
    const reported = new Map<string, string[]>();
    const clear = async (rt: RuntimeService) => {
      for (let round = 0; round < 10; round++) {
        const res = await rt.api.post<BulkAnswer>('/api/tasks/bulk/cancel', { filter, max: 500, reason: 'queue cleared' }, TEST_KEYS.operator);
        expect(res.status).toBe(200);
        for (const run of res.body.runs) reported.set(run.runId, [...(reported.get(run.runId) ?? []), run.outcome]);
        if (res.body.matched === 0) return round;
      }
      throw new Error('the filter still matched after 10 rounds');
    };
    await Promise.all([clear(a), clear(b)]);

    expect(reported.size).toBe(MATCHING);
    for (const outcomes of reported.values()) expect(outcomes.every((o) => o === 'cancelled' || o === 'already-finished')).toBe(true);

    // Each run ended cancelled by one transition: one `cancelled` event, whichever instance wrote it.
    for (const rt of [a, b]) {
      const listed = await rt.api.get<{ total: number }>(`/api/tasks/runs?type=${TYPE}&status=cancelled&limit=1`);
      expect(listed.body.total).toBe(MATCHING);
      const left = await rt.api.get<{ total: number }>(`/api/tasks/runs?type=${TYPE}&status=pending&limit=1`);
      expect(left.body.total).toBe(0);
    }
    await inBatches(ids, 25, async (id, i) => {
      const run = (await (i % 2 === 0 ? b : a).api.run<{ status: string; events: Array<{ name: string }> }>(id)).body;
      expect(run.status, id).toBe('cancelled');
      expect(run.events.filter((e) => e.name === 'cancelled'), id).toHaveLength(1);
    });
    for (const id of bystanders) expect((await b.api.run<{ status: string }>(id)).body.status).toBe('pending');
  }, 180_000);
});
