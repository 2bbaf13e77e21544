import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { orch } from '../support/cli.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/*
 * `orch cancel --filter` and `orch rerun --failed --type` against a live service: what they
 * print is checked against the runs the API lists and the bulk route answers for the same
 * filter, and what they change against the runs afterwards.
 */

const TYPE = 'summarize-content';

/** The table row (after the summary line and the header) that starts with the run id; an empty cell shows `-`. */
function rowOf(stdout: string, runId: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${runId} `));
  expect(line, `a row for ${runId} in:\n${stdout}`).toBeDefined();
  return line!.trim().split(/\s{2,}/);
}

describe('orch bulk cancel and rerun against a live service', () => {
  let svc: RuntimeService;
  let env: NodeJS.ProcessEnv;
  const held = ['cli-bulk-h1', 'cli-bulk-h2'];
  const failed = ['cli-bulk-f1', 'cli-bulk-f2'];
  const statusOf = async (runId: string) => (await svc.api.run(runId)).body.status as string;

  beforeAll(async () => {
    svc = await startRuntimeService();
    env = { ORCH_URL: svc.service.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-bulk-'), COLUMNS: '200' };
    for (const key of failed) await svc.api.trigger(TYPE, { content: 'refused', mode: 'logical-failure', idempotencyKey: key });
    for (const key of failed) await waitForTerminal(svc.api, key);
    for (const key of held) await svc.api.trigger(TYPE, { content: 'Hold it.', requiresApproval: true, idempotencyKey: key });
  }, 60_000);
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('asks for --yes unless --dry-run, and changes nothing without it', async () => {
    const result = await orch(['cancel', '--filter', `type=${TYPE},status=pending`], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--dry-run/);
    expect(result.stderr).toMatch(/--yes/);
    for (const id of held) expect(await statusOf(id)).toBe('pending');
  });

  it('prints in a dry run the runs the API matches and what each would come to', async () => {
    const api = await svc.api.post('/api/tasks/bulk/cancel', { filter: { type: TYPE, status: 'pending' }, dryRun: true });
    const result = await orch(['cancel', '--filter', `type=${TYPE},status=pending`, '--dry-run'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`would cancel ${api.body.runs.length} of ${api.body.matched} matching runs`);
    for (const run of api.body.runs as Array<{ runId: string; type: string; status: string; outcome: string }>) {
      expect(rowOf(result.stdout, run.runId)).toEqual([run.runId, run.type, run.status, run.outcome, '-']);
    }
    expect(api.body.runs.map((r: { runId: string }) => r.runId).sort()).toEqual([...held].sort());
    for (const id of held) expect(await statusOf(id)).toBe('pending');
  });

  it('cancels every matching run with --yes, keeping the words as the reason', async () => {
    const result = await orch(['cancel', '--filter', `type=${TYPE},status=pending,payload.content=Hold it.`, '--yes', 'queue', 'cleanup'], env);
    expect(result.code, result.stderr).toBe(0);
    for (const id of held) {
      expect(rowOf(result.stdout, id)).toEqual([id, TYPE, 'pending', 'cancelled', '-']);
      expect((await svc.api.run(id)).body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'queue cleanup' } });
    }
  });

  it('reruns the failed runs of one type, printing each new run id the API made', async () => {
    const dry = await orch(['rerun', '--failed', '--type', TYPE, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    for (const id of failed) expect(rowOf(dry.stdout, id)).toEqual([id, TYPE, 'failed', 'rerun', '-']);
    expect((await svc.api.get(`/api/tasks/runs?type=${TYPE}`)).body.total).toBe(4);

    const result = await orch(['rerun', '--failed', '--type', TYPE, '--yes', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { runs: Array<{ runId: string; outcome: string; newRunId: string }> };
    expect(answer.runs.map((r) => r.runId).sort()).toEqual([...failed].sort());
    for (const run of answer.runs) {
      expect(run.outcome).toBe('rerun');
      expect((await svc.api.run(run.newRunId)).body).toMatchObject({ rerunOf: run.runId, type: TYPE });
    }
  });

  it('refuses an unknown filter key, a bulk rerun with a run id, and a viewer', async () => {
    const unknown = await orch(['cancel', '--filter', 'typo=x', '--dry-run'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown --filter key 'typo'/);
    const mixed = await orch(['rerun', 'cli-bulk-f1', '--failed', '--yes'], env);
    expect(mixed.code).toBe(2);
    const viewer = await orch(['cancel', '--filter', `type=${TYPE}`, '--yes'], { ...env, ORCH_API_KEY: TEST_KEYS.viewer });
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toMatch(/forbidden/);
  });
});
