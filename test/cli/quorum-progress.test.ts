import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge } from '../../bridge/index.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { orch } from '../support/cli.js';
import { tempDir } from '../support/config.js';
import { apiClient } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

/**
 * Under `requiredApprovals: 2` the command line and the bridge both show a held run's progress
 * ("1 of 2 approvals") in their lists and say a first approval was recorded, not that the run
 * was approved; the second approval answers as an approval always did, with its replay.
 */
describe('"1 of 2 approvals" in orch and the /orch bridge', () => {
  let svc: ComposedService;
  let api: ReturnType<typeof apiClient>;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    svc = await startComposedService({ config: { approvalPolicy: { 'summarize-content': { requiredApprovals: 2 } } } });
    api = apiClient(svc.url);
    env = { ORCH_URL: svc.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-quorum-config-') };
  });
  afterAll(async () => {
    await svc?.close();
  });

  const hold = async (key: string) =>
    (await api.trigger('summarize-content', { content: 'two people decide', requiresApproval: true, idempotencyKey: key })).body.taskId as string;

  it('orch approvals lists the progress; orch approve says "recorded" short of the quorum, then replays', async () => {
    const taskId = await hold('quorum-cli-1');
    const before = await orch(['approvals'], env);
    expect(before.stdout).toMatch(new RegExp(`${taskId}.*0 of 2 approvals`));

    const first = await orch(['approve', taskId, 'fine', 'by', 'me'], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`recorded  ${taskId}  1 of 2 approvals\n`);
    expect((await orch(['approvals'], env)).stdout).toMatch(new RegExp(`${taskId}.*1 of 2 approvals`));

    const again = await orch(['approve', taskId], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already decided/);

    const second = await orch(['approve', taskId], { ...env, ORCH_API_KEY: TEST_KEYS.admin });
    expect(second.stdout).toBe(`approved  ${taskId}  replay run approval-replay:${taskId}\n`);
  });

  it('/orch approvals shows the progress; /orch approve says the approval was recorded until the quorum is met', async () => {
    const taskId = await hold('quorum-bridge-1');
    const bridge = createBridge({ url: svc.url, users: { alice: TEST_KEYS.operator, boss: TEST_KEYS.admin } });
    const alice = { user: 'alice', channel: 'ops' };
    expect(await bridge.handle('/orch approvals', alice)).toContain(`- ${taskId} · summarize-content · risk low · 0 of 2 approvals (/orch approve ${taskId})`);
    expect(await bridge.handle(`/orch approve ${taskId} "looks right"`, alice)).toBe(
      `Approval of ${taskId} recorded: 1 of 2 approvals. It runs once enough others approve.`,
    );
    expect(await bridge.handle('/orch approvals', alice)).toContain(`- ${taskId} · summarize-content · risk low · 1 of 2 approvals`);
    expect(await bridge.handle(`/orch approve ${taskId}`, { user: 'boss', channel: 'ops' })).toBe(
      `Approved ${taskId}. It runs as approval-replay:${taskId}: /orch status approval-replay:${taskId}`,
    );
  });
});
