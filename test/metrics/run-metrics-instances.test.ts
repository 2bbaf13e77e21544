import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { seriesValue } from '../support/metrics-text.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const skipReason = TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL needed: skipped)';
const schema = uniqueSchema('run_metrics');
const TYPE = 'summarize-content';

/**
 * Two instances on one PostgreSQL: each counts the runs it ran, so the counters summed over the
 * instances give every run once; the gauges of shared state read the same figures on both.
 */
describe.skipIf(skipReason !== '')(`run metrics of two instances sharing one PostgreSQL${skipReason}`, () => {
  const instances: RuntimeService[] = [];
  const scrapes: string[] = [];
  const sum = (series: string) => scrapes.reduce((total, text) => total + (seriesValue(text, series) ?? NaN), 0);

  beforeAll(async () => {
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), concurrency: 2, logLevel: 'warn' };
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 2; i++) instances.push(await startRuntimeService(config, tempDir(`orch-metrics-${i}-`)));
    const runIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await instances[i % 2]!.api.trigger(TYPE, { content: 'x', mode: i < 6 ? 'success' : 'logical-failure', idempotencyKey: `pm-${i}` });
      expect(res.status).toBe(202);
      runIds.push(res.body.runId);
    }
    // Held on the first instance, rejected through the second; another left pending.
    const held = await instances[0]!.api.trigger(TYPE, { content: 'x', requiresApproval: true, idempotencyKey: 'pm-held' });
    await instances[0]!.api.trigger(TYPE, { content: 'x', requiresApproval: true, idempotencyKey: 'pm-pending' });
    expect((await instances[1]!.api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'rejected' }, TEST_KEYS.admin)).status).toBe(200);
    await Promise.all([...runIds, 'pm-held'].map((id) => waitForTerminal(instances[0]!.api, id, 20_000)));
    for (const { service } of instances) scrapes.push(await (await fetch(service.metricsUrl!)).text());
  }, 90_000);
  afterAll(async () => {
    for (const { service } of instances) await service.kill();
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [schema]);
  });

  it('counts every run once across the instances', () => {
    expect(sum(`orchestrator_runs_finished_total{type="${TYPE}",status="success"}`)).toBe(6);
    expect(sum(`orchestrator_runs_finished_total{type="${TYPE}",status="failed"}`)).toBe(2);
    expect(sum(`orchestrator_runs_finished_total{type="${TYPE}",status="rejected"}`)).toBe(1);
    expect(sum(`orchestrator_run_attempts_total{type="${TYPE}"}`)).toBe(8);
    expect(sum(`orchestrator_run_duration_seconds_count{type="${TYPE}"}`)).toBe(8);
    expect(sum(`orchestrator_run_queue_wait_seconds_count{type="${TYPE}"}`)).toBe(8);
    // Each instance counts its own work: both ran some runs, and only the one that took the decision counts the rejection.
    for (const text of scrapes) expect(seriesValue(text, `orchestrator_run_attempts_total{type="${TYPE}"}`)).toBeGreaterThan(0);
    expect(scrapes.map((text) => seriesValue(text, `orchestrator_runs_finished_total{type="${TYPE}",status="rejected"}`))).toEqual([0, 1]);
  });

  it('reads the same shared state on every instance', () => {
    for (const text of scrapes) {
      expect(seriesValue(text, 'orchestrator_approvals_pending')).toBe(1);
      expect(seriesValue(text, `orchestrator_runs_executing{type="${TYPE}"}`)).toBe(0);
    }
  });
});
