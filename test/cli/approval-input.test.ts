import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge } from '../../bridge/index.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { orch } from '../support/cli.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

/**
 * Approval input from the command line (`--input key=value`, `--input-file`) and the bridge
 * (leading key=value words): checked by the service against agent-deploy's approval input schema
 * and merged into the replayed deployment.
 */
describe('approval input in orch approve and /orch approve', () => {
  let svc: ComposedService;
  let api: ReturnType<typeof apiClient>;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    svc = await startComposedService({ runtime: true });
    api = apiClient(svc.url);
    env = { ORCH_URL: svc.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-input-config-') };
  });
  afterAll(async () => {
    await svc?.close();
  });

  const hold = async (key: string) =>
    (await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: key }, TEST_KEYS.admin)).body.taskId as string;
  const deployPathOf = async (taskId: string) => ((await waitForTerminal(api, `approval-replay:${taskId}`)).result.result.deployPath as string);

  it('orch approve --input and --input-file: refused when the schema refuses, merged into the replay when it accepts', async () => {
    const taskId = await hold('input-cli-1');
    const bad = await orch(['approve', taskId, '--input', 'deployName=NOT valid'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/deployName/);
    expect((await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator)).body.status).toBe('pending');

    const file = join(tempDir('orch-input-file-'), 'input.json');
    writeFileSync(file, JSON.stringify({ deployName: 'from-file', version: '1.0.0' }));
    const approved = await orch(['approve', taskId, 'ship', 'it', '--input-file', file, '--input', 'deployName=cli-target', '--input', 'version="2.0.0"'], env);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toBe(`approved  ${taskId}  replay run approval-replay:${taskId}\n`);
    expect(await deployPathOf(taskId)).toMatch(/^deployments\/cli-target-/);
    const decided = (await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator)).body;
    expect(decided.decisionHistory[0]).toMatchObject({ note: 'ship it', input: { deployName: 'cli-target', version: '2.0.0' } });

    expect((await orch(['approve', taskId, '--input', 'novalue'], env)).code).toBe(2);
    expect((await orch(['reject', taskId, '--input', 'a=1'], env)).code).toBe(2);
  });

  it('/orch approve <id> key=value note: the leading assignments are the input, the rest the note', async () => {
    const taskId = await hold('input-bridge-1');
    const bridge = createBridge({ url: svc.url, users: { alice: TEST_KEYS.operator } });
    const reply = await bridge.handle(`/orch approve ${taskId} deployName=bridge-target looks good`, { user: 'alice', channel: 'ops' });
    expect(reply).toBe(`Approved ${taskId}. It runs as approval-replay:${taskId}: /orch status approval-replay:${taskId}`);
    expect(await deployPathOf(taskId)).toMatch(/^deployments\/bridge-target-/);
    const decided = (await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator)).body;
    expect(decided.decisionHistory[0]).toMatchObject({ actor: 'ops', note: 'looks good', input: { deployName: 'bridge-target' } });
  });
});
