import { describe, expect, it } from 'vitest';
import { PROJECT_CODE_LANES, projectCodeLanes } from '../../src/lanes/project-code.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { SANDBOX_PAYLOAD_KEY } from '../../src/worker-sdk/project-command.js';
import { handlerConfig, testConfig } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';

describe('the lanes that run project code', () => {
  it('are worker lanes of the catalog, each handed the operator sandbox policy under __sandbox', async () => {
    const registry = testLaneRegistry(projectCodeLanes({ allowUnsandboxed: true }));
    for (const type of PROJECT_CODE_LANES) {
      expect(TASK_CATALOG.find((entry) => entry.type === type)?.executor).toBe('worker');
      const input = await registry.get(type).workerInput!({} as never);
      expect(input).toEqual({ [SANDBOX_PAYLOAD_KEY]: { allowUnsandboxed: true } });
    }
    expect(SANDBOX_PAYLOAD_KEY).toBe('__sandbox');
  });

  it('hand the default policy, no opt-in, when the configuration names none', async () => {
    const config = testConfig();
    expect(config.sandbox).toEqual({ allowUnsandboxed: false });
    const [lane] = projectCodeLanes(config.sandbox);
    expect(await lane!.workerInput!({} as never)).toEqual({ __sandbox: { allowUnsandboxed: false } });
  });

  it('read the opt-in from the config file, refusing a misspelt key rather than ignoring it', () => {
    expect(handlerConfig({ sandbox: { allowUnsandboxed: true } }).sandbox).toEqual({ allowUnsandboxed: true });
    expect(handlerConfig({ sandbox: {} }).sandbox).toEqual({ allowUnsandboxed: false });
    expect(() => handlerConfig({ sandbox: { allowUnsandbox: true } })).toThrow(/sandbox/);
  });
});
