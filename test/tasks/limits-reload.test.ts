import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/domain/run-record.js';
import { composedServiceForSuite } from '../support/composed-service.js';
import { apiClient } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { markRunning } from '../support/runs.js';

const TYPE = 'summarize-content';

describe('limits reload (POST /api/limits/reload)', () => {
  // The runner is off: the test claims by hand, with the limits the service holds, as its runner would.
  const service = composedServiceForSuite({ config: { limits: { summaries: { match: { types: [TYPE] }, concurrency: 1 } } } });
  const api = () => apiClient(service().url);
  const configFile = () => service().config.configFile!;
  const withLimits = (limits: unknown) => writeFileSync(configFile(), JSON.stringify({ ...JSON.parse(readFileSync(configFile(), 'utf8')), limits }));
  const claim = async () =>
    (await service().store.claimRuns({ typeLimits: {}, buckets: [...service().config.limits] }, 10, (run) => markRunning(run))).map((run) => run.runId);
  const finish = (runId: string) => service().store.mutateRun(runId, (cur) => ({ ...(cur as RunRecord), status: 'success', queueState: null }));

  it('runs waiting under a bucket of 1 start under the reloaded cap of 3, each exactly once', async () => {
    const admitted: string[] = [];
    for (let i = 0; i < 5; i++) admitted.push((await api().post('/api/tasks/trigger', { type: TYPE, payload: { content: `r-${i}` } })).body.runId as string);
    const taken = await claim();
    expect(taken).toHaveLength(1);
    expect(await claim()).toEqual([]);

    withLimits({ summaries: { match: { types: [TYPE] }, concurrency: 3 }, audits: { match: { types: ['doc-sync'] }, perKey: 2 } });
    const reload = await api().post('/api/limits/reload', {}, TEST_KEYS.admin);
    expect(reload.status).toBe(200);
    expect(reload.body).toMatchObject({ added: ['audits'], removed: [], changed: ['summaries'], unchanged: [] });
    expect(reload.body.limits).toContainEqual({ name: 'summaries', match: { types: [TYPE] }, concurrency: 3 });
    expect((await api().get('/api/queue')).body.buckets.map((bucket: { name: string }) => bucket.name)).toEqual(['summaries', 'audits']);

    // The next claims count by the new cap: two more now, the rest as runs finish.
    const second = await claim();
    expect(second).toHaveLength(2);
    taken.push(...second);
    // One finishing frees one slot: the next claim takes one more, never more than the cap at once.
    for (let finished = 0; taken.length < admitted.length; finished++) {
      await finish(taken[finished]!);
      const next = await claim();
      expect(next).toHaveLength(1);
      taken.push(...next);
    }
    expect(taken.sort()).toEqual([...admitted].sort());
    expect(new Set(taken).size).toBe(admitted.length);
  });

  it('keeps the limits in force when the file does not load (409), and lets only an admin reload', async () => {
    const before = structuredClone(service().config.limits);
    writeFileSync(configFile(), '{"limits": {"bad": {"match": {}}}}');
    const refused = await api().post('/api/limits/reload', {}, TEST_KEYS.admin);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/limits\.bad caps nothing/);
    expect(service().config.limits).toEqual(before);
    expect((await api().post('/api/limits/reload', {}, TEST_KEYS.operator)).status).toBe(403);
  });
});
