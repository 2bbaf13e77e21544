import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import { packageRoot } from '../../src/config/package-root.js';
import { tempDir } from '../support/config.js';
import { FIXTURE_AGENTS_DIR } from '../support/paths.js';

const AGENTS_DIR = join(packageRoot(), 'agents');

/** The spec's Agent catalog: agent id → task lanes. */
const CATALOG: Record<string, string[]> = {
  'doc-specialist': ['drift-repair'],
  'system-monitor-agent': ['system-monitor', 'incident-triage'],
  'security-agent': ['security-audit'],
  'qa-verification-agent': ['qa-verification'],
  'integration-agent': ['integration-workflow'],
  'build-refactor-agent': ['build-refactor'],
  'market-research-agent': ['market-research'],
  'operations-analyst-agent': ['control-plane-brief'],
  'community-helper': ['community-response'],
  'content-agent': ['content-generate'],
  'data-extraction-agent': ['data-extraction'],
  'normalization-agent': ['normalize-data'],
  'release-manager-agent': ['release-readiness'],
  'deployment-ops-agent': ['deployment-ops'],
  'code-index-agent': ['code-index'],
  'test-intelligence-agent': ['test-intelligence'],
  'compliance-agent': ['compliance-review'],
  'summarization-agent': ['summarize-content'],
  'skill-audit-agent': ['skill-audit'],
};

const VALID_MANIFEST = {
  id: 'sample-agent',
  name: 'Sample',
  description: 'A sample agent.',
  lanes: ['sample-lane'],
  lifecycleMode: 'worker-first',
  serviceExpected: false,
  serviceUnitName: null,
  entrypoint: 'index.js',
  orchestratorStatePath: null,
  serviceStatePath: null,
  allowedSkills: [],
  model: { tier: 'local', provider: null, name: null },
};

function writeAgent(root: string, directory: string, manifest: unknown, raw?: string): string {
  mkdirSync(join(root, directory), { recursive: true });
  const path = join(root, directory, 'agent.config.json');
  writeFileSync(path, raw ?? JSON.stringify(manifest));
  return path;
}

describe('agent registry: the shipped agents', () => {
  const registry = loadAgentRegistry(AGENTS_DIR);

  it('declares the 19 agents of the catalog with their lanes', () => {
    const declared = Object.fromEntries(registry.list().map((agent) => [agent.id, agent.lanes]));
    expect(declared).toEqual(CATALOG);
    expect(registry.list().map((a) => a.id)).toEqual(Object.keys(CATALOG).sort());
  });

  it('marks exactly doc-specialist and community-helper as service-expected, with a unit and heartbeat file', () => {
    const services = registry.list().filter((agent) => agent.serviceExpected);
    expect(services.map((a) => a.id)).toEqual(['community-helper', 'doc-specialist']);
    for (const agent of services) {
      expect(agent.lifecycleMode).toBe('service-expected');
      expect(agent.serviceUnitName).toBe(`orchestrator-${agent.id}.service`);
      expect(agent.serviceStatePath).toBe(`logs/${agent.id}-service.json`);
    }
    for (const agent of registry.list().filter((a) => !a.serviceExpected)) {
      expect(agent).toMatchObject({ lifecycleMode: 'worker-first', serviceUnitName: null, serviceStatePath: null });
    }
  });

  it('gives every agent a SOUL.md, inherited state and model settings', () => {
    for (const agent of registry.list()) {
      expect(agent.soulPath).toBe(join(AGENTS_DIR, agent.id, 'SOUL.md'));
      expect(agent.orchestratorStatePath).toBeNull();
      expect(['local', 'standard', 'advanced']).toContain(agent.model.tier);
    }
  });

  it('finds the agent of a lane', () => {
    expect(registry.forLane('summarize-content')?.id).toBe('summarization-agent');
    expect(registry.forLane('incident-triage')?.id).toBe('system-monitor-agent');
    expect(registry.forLane('system-monitor')?.id).toBe('system-monitor-agent');
    expect(registry.forLane('doc-sync')).toBeUndefined();
    expect(registry.get('security-agent')?.lanes).toEqual(['security-audit']);
    expect(registry.get('no-such-agent')).toBeUndefined();
  });

  it('resolves every declared entrypoint to a built file; an agent without one says why it cannot run', () => {
    for (const agent of registry.list()) {
      if (agent.entrypoint === null) {
        expect(agent.entrypointPath).toBeNull();
        expect(agent.entrypointMissingReason).toBe('no worker entrypoint declared in agent.config.json');
      } else {
        expect(agent.entrypointPath, agent.id).toMatch(/index\.js$/);
        expect(agent.entrypointMissingReason).toBeNull();
      }
    }
    expect(registry.get('summarization-agent')?.entrypoint).toBe('index.js');
  });

  it('resolves a TypeScript agent to its compiled file, or explains that the build is missing', () => {
    const emptyBuild = tempDir();
    const unbuilt = loadAgentRegistry(AGENTS_DIR, { compiledAgentsDir: emptyBuild }).get('summarization-agent')!;
    expect(unbuilt.entrypointPath).toBeNull();
    expect(unbuilt.entrypointMissingReason).toMatch(/^build output missing: run npm run build/);

    const build = tempDir();
    mkdirSync(join(build, 'summarization-agent'));
    writeFileSync(join(build, 'summarization-agent', 'index.js'), '');
    const built = loadAgentRegistry(AGENTS_DIR, { compiledAgentsDir: build }).get('summarization-agent')!;
    expect(built.entrypointPath).toBe(join(build, 'summarization-agent', 'index.js'));
    expect(built.entrypointMissingReason).toBeNull();
  });
});

describe('agent registry: loading rules', () => {
  it('prefers a plain JavaScript entrypoint next to the manifest', () => {
    const registry = loadAgentRegistry(FIXTURE_AGENTS_DIR);
    expect(registry.get('fixture-success')?.entrypointPath).toBe(join(FIXTURE_AGENTS_DIR, 'fixture-success', 'index.mjs'));
  });

  it('skips directories without a manifest', () => {
    const root = tempDir();
    writeAgent(root, 'sample-agent', VALID_MANIFEST);
    mkdirSync(join(root, 'shared-helpers'));
    expect(loadAgentRegistry(root).list().map((a) => a.id)).toEqual(['sample-agent']);
  });

  it('throws naming the file when a manifest is not JSON', () => {
    const root = tempDir();
    const path = writeAgent(root, 'sample-agent', null, '{ "id": "sample-agent", ');
    expect(() => loadAgentRegistry(root)).toThrow(`invalid agent manifest ${path}`);
  });

  it.each([
    ['a missing field', { ...VALID_MANIFEST, lanes: undefined }, /\/lanes|lanes/],
    ['an unknown field', { ...VALID_MANIFEST, serviceUnit: 'x.service' }, /serviceUnit/],
    ['an id that is not its directory', { ...VALID_MANIFEST, id: 'other-agent' }, /does not match its directory/],
    ['a bad model tier', { ...VALID_MANIFEST, model: { tier: 'huge', provider: null, name: null } }, /model/],
    [
      'a service-expected agent without a unit',
      { ...VALID_MANIFEST, lifecycleMode: 'service-expected', serviceExpected: true, serviceStatePath: 'logs/s.json' },
      /needs a serviceUnitName/,
    ],
    ['a worker-first agent with a heartbeat file', { ...VALID_MANIFEST, serviceStatePath: 'logs/s.json' }, /has no serviceStatePath/],
    ['serviceExpected disagreeing with lifecycleMode', { ...VALID_MANIFEST, serviceExpected: true }, /serviceExpected must be false/],
    ['an entrypoint outside the agent directory', { ...VALID_MANIFEST, entrypoint: '../other/index.js' }, /inside the agent directory/],
    ['an entrypoint that is not JavaScript', { ...VALID_MANIFEST, entrypoint: 'index.ts' }, /JavaScript file/],
  ])('throws naming the file for %s', (_label, manifest, problem) => {
    const root = tempDir();
    const path = writeAgent(root, 'sample-agent', manifest);
    expect(() => loadAgentRegistry(root)).toThrow(`invalid agent manifest ${path}`);
    expect(() => loadAgentRegistry(root)).toThrow(problem);
  });

  it('refuses two agents claiming the same lane', () => {
    const root = tempDir();
    writeAgent(root, 'sample-agent', VALID_MANIFEST);
    writeAgent(root, 'twin-agent', { ...VALID_MANIFEST, id: 'twin-agent' });
    expect(() => loadAgentRegistry(root)).toThrow(/lane "sample-lane" is claimed by both .*sample-agent.* and .*twin-agent/);
  });

  it('refuses a missing agents directory', () => {
    expect(() => loadAgentRegistry(join(tempDir(), 'absent'))).toThrow(/agents directory not found/);
  });
});
