import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { seriesValue } from '../support/metrics-text.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService } from '../support/operator-types.js';

const FIELD = 'field() { sed -e "s/.*\\"$1\\":\\"\\([^\\"]*\\)\\".*/\\1/" "$ORCH_PAYLOAD_FILE"; }';
/** A program that sleeps `wait` seconds (a payload field) and answers. */
const SLEEPER = { 'run.sh': { text: `${FIELD}\nsleep "$(field wait)"\necho '{"slept":true}'` } };
const waitSchema = { type: 'object', properties: { wait: { type: 'string', pattern: '^[0-9.]+$' } }, required: ['wait'] };
const sleeper = (type: string, fields: Record<string, unknown> = {}) => shellManifest(type, { payloadSchema: waitSchema, ...fields });

/** What a reload changes beyond the catalog: the run metrics' type label and the manifests' run limits. */
describe('a reload of the operator task types, for metrics and run limits', () => {
  let svc: OperatorService;
  const reload = async () => {
    const res = await svc.api.post('/api/task-types/reload', {}, TEST_KEYS.admin);
    expect(res.status).toBe(200);
    return res.body as { added: string[]; changed: string[]; removed: string[] };
  };
  const statusOf = async (runId: string) => (await svc.api.run(runId)).body.status as string;
  const statuses = (runIds: string[]) => Promise.all(runIds.map(statusOf));
  const trigger = async (type: string, wait: string) => {
    const res = await svc.api.trigger(type, { wait });
    expect(res.status).toBe(202);
    return res.body.runId as string;
  };
  const scrape = () => svc.metrics.registry.metrics();

  beforeAll(async () => {
    svc = await startOperatorService((dir) => writeOperatorType(dir, 'limited', sleeper('limited', { concurrency: 1 }), SLEEPER), { concurrency: 4 }, {}, { runMetrics: true });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('a type a reload adds is counted under its own type label at once, not under other', async () => {
    const finished = (type: string) => `orchestrator_runs_finished_total{type="${type}",status="success"}`;
    expect(seriesValue(await scrape(), finished('metered'))).toBeNull();
    writeOperatorType(svc.typesDir, 'metered', sleeper('metered'), SLEEPER);
    expect((await reload()).added).toEqual(['metered']);
    // Its series exist at zero from the reload on, so a first failure is never missed by increase().
    expect(seriesValue(await scrape(), finished('metered'))).toBe(0);
    const otherBefore = seriesValue(await scrape(), finished('other')) ?? 0;
    expect(await svc.runToEnd('metered', { wait: '0' })).toMatchObject({ status: 'success' });
    const text = await scrape();
    expect(seriesValue(text, finished('metered'))).toBe(1);
    expect(seriesValue(text, `orchestrator_run_attempts_total{type="metered"}`)).toBe(1);
    expect(seriesValue(text, finished('other')) ?? 0).toBe(otherBefore);
  });

  it("a manifest's concurrency changed, then removed, by a reload applies to runs already waiting", async () => {
    const runs = [await trigger('limited', '3'), await trigger('limited', '3'), await trigger('limited', '3')];
    await waitFor(async () => ((await statusOf(runs[0]!)) === 'running' ? true : undefined), 10_000, 'the first run to start');
    expect(await statuses(runs)).toEqual(['running', 'pending', 'pending']);

    writeOperatorType(svc.typesDir, 'limited', sleeper('limited', { concurrency: 2 }));
    expect((await reload()).changed).toEqual(['limited']);
    // The second starts beside the first; the third still waits for a slot of the type.
    await waitFor(async () => ((await statusOf(runs[1]!)) === 'running' ? true : undefined), 5_000, 'the second run to start under the new limit');
    expect(await statuses(runs)).toEqual(['running', 'running', 'pending']);

    writeOperatorType(svc.typesDir, 'limited', sleeper('limited'));
    await reload();
    await waitFor(async () => ((await statusOf(runs[2]!)) === 'running' ? true : undefined), 5_000, 'the third run to start once the limit is gone');
    expect(await statuses(runs)).toEqual(['running', 'running', 'running']);
    for (const runId of runs) expect((await waitForTerminal(svc.api, runId, 20_000)).status).toBe('success');
  });

  it('a type a reload adds with a concurrency runs under it', async () => {
    writeOperatorType(svc.typesDir, 'added-limited', sleeper('added-limited', { concurrency: 1 }), SLEEPER);
    expect((await reload()).added).toEqual(['added-limited']);
    const runs = [await trigger('added-limited', '2'), await trigger('added-limited', '0')];
    await waitFor(async () => ((await statusOf(runs[0]!)) === 'running' ? true : undefined), 10_000, 'the first run to start');
    expect(await statuses(runs)).toEqual(['running', 'pending']);
    expect((await waitForTerminal(svc.api, runs[1]!, 20_000)).status).toBe('success');
    expect((await waitForTerminal(svc.api, runs[0]!, 20_000)).status).toBe('success');
  });
});
