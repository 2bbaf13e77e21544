import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge, loadBridgeConfig } from '../../bridge/index.js';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { writeFileSync } from 'node:fs';

const DOC = readFileSync(join(REPO_ROOT, 'docs', 'bridge.md'), 'utf8');

describe('docs/bridge.md, run as written', () => {
  let svc: RuntimeService;
  beforeAll(async () => {
    svc = await startRuntimeService();
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('loads the config block, keys from the environment it names', () => {
    const block = /```json\n([\s\S]*?)```/.exec(DOC)![1]!;
    const path = join(tempDir('bridge-doc-'), 'bridge.json');
    writeFileSync(path, block);
    const env = { ORCH_KEY_ALICE: TEST_KEYS.operator, ORCH_KEY_BOB: TEST_KEYS.admin, ORCH_KEY_VIEWER: TEST_KEYS.viewer, ORCH_BRIDGE_SECRET: 's3cret-for-docs' };
    const config = loadBridgeConfig(path, env);
    expect(config).toEqual({
      options: { url: 'http://127.0.0.1:3000', users: { alice: TEST_KEYS.operator, bob: TEST_KEYS.admin }, readOnlyKey: TEST_KEYS.viewer },
      secret: 's3cret-for-docs',
      port: 8787,
      host: '127.0.0.1',
    });
    expect(() => loadBridgeConfig(path, { ...env, ORCH_KEY_BOB: undefined })).toThrow('users.bob.keyEnv names no set environment variable');
  });

  it('answers every example message as documented', async () => {
    const section = DOC.slice(DOC.indexOf('## Examples'));
    const lines = /```text\n([\s\S]*?)```/.exec(section)![1]!.split('\n').filter((l) => l.startsWith('/orch'));
    expect(lines.length).toBeGreaterThan(5);
    const bridge = createBridge({ url: svc.service.url, users: { alice: TEST_KEYS.operator }, readOnlyKey: TEST_KEYS.viewer });
    for (const line of lines) {
      const [message, expected] = line.split(' => ');
      const reply = await bridge.handle(message!, { user: 'alice', channel: 'docs' });
      expect(reply.startsWith(expected!), `${message} -> ${reply}`).toBe(true);
      if (message!.includes('idempotencyKey=docs-bridge-1')) await waitForTerminal(svc.api, 'docs-bridge-1');
    }
  });
});
