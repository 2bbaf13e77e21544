import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import { canonicalJson } from '../../src/domain/canonical-json.js';
import {
  formatManifestSkillProblem,
  LANE_SKILL_REQUIREMENTS,
  loadSkillRegistry,
  SKILL_DEFINITIONS,
  SKILL_REGISTRY_VERSION,
  validateManifestSkills,
  type SkillDefinition,
} from '../../src/agents/skills.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { AGENTS_DIR } from '../support/paths.js';

const shipped = () => loadAgentRegistry(AGENTS_DIR, { compiledAgentsDir: join(AGENTS_DIR, '..', 'dist', 'agents') }).list();

const TOOL_GATED = [
  'control-plane-brief', 'incident-triage', 'release-readiness', 'deployment-ops', 'code-index', 'test-intelligence',
  'compliance-review', 'security-audit', 'summarize-content', 'system-monitor', 'content-generate', 'integration-workflow',
  'normalize-data', 'market-research', 'data-extraction', 'qa-verification', 'skill-audit', 'build-refactor', 'autonomous-work-cycle',
];

describe('skill registry', () => {
  const registry = loadSkillRegistry();

  it('lists every skill once, ordered by id, with its governance fields', () => {
    const ids = registry.list().map((s) => s.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(SKILL_DEFINITIONS.length);
    expect(registry.get('workspace-write')).toMatchObject({
      executability: 'executable',
      executorBinding: 'worker:fs-write',
      persistenceMode: 'writes-workspace',
      risk: 'high',
    });
    expect(registry.get('llm-draft')).toMatchObject({ executability: 'declared', executorBinding: null });
    expect(registry.get('no-such-skill')).toBeUndefined();
  });

  it('stamps provenance: source, sha256 of the canonical definition JSON, registry version', () => {
    const skill = registry.get('http-fetch-allowlisted')!;
    const { provenance, ...definition } = skill;
    const expected = createHash('sha256').update(canonicalJson(definition)).digest('hex');
    expect(provenance).toEqual({ source: 'src/agents/skills.ts', definitionHash: expected, registryVersion: SKILL_REGISTRY_VERSION });
    // Key order does not matter; content does.
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    const changed = SKILL_DEFINITIONS.map((d) => (d.id === 'http-fetch-allowlisted' ? { ...d, risk: 'high' as const } : d));
    const other = loadSkillRegistry(changed);
    expect(other.get('http-fetch-allowlisted')!.provenance.definitionHash).not.toBe(expected);
    expect(other.get('workspace-read')!.provenance.definitionHash).toBe(registry.get('workspace-read')!.provenance.definitionHash);
    expect(other.digest).not.toBe(registry.digest);
  });

  it('refuses a malformed table', () => {
    const dup: SkillDefinition[] = [...SKILL_DEFINITIONS, { ...SKILL_DEFINITIONS[0]! }];
    expect(() => loadSkillRegistry(dup)).toThrow(/defined twice/);
    const unbound: SkillDefinition[] = [{ id: 'x-run', description: 'x', executability: 'executable', executorBinding: null, persistenceMode: 'none', risk: 'low' }];
    expect(() => loadSkillRegistry(unbound)).toThrow(/executor binding/);
  });

  it('has a requirement record for exactly the tool-gated lanes of the task catalog', () => {
    expect(Object.keys(LANE_SKILL_REQUIREMENTS).sort()).toEqual([...TOOL_GATED].sort());
    const catalogGated = TASK_CATALOG.filter((e) => e.toolGatePreflight).map((e) => e.type).sort();
    expect(Object.keys(LANE_SKILL_REQUIREMENTS).sort()).toEqual(catalogGated);
    for (const [lane, ids] of Object.entries(LANE_SKILL_REQUIREMENTS)) {
      for (const id of ids) expect(registry.get(id), `${lane} requires ${id}`).toBeDefined();
    }
    expect(LANE_SKILL_REQUIREMENTS['build-refactor']).toEqual(expect.arrayContaining(['workspace-write', 'npm-script-runner']));
    expect(LANE_SKILL_REQUIREMENTS['market-research']).toContain('http-fetch-allowlisted');
    expect(LANE_SKILL_REQUIREMENTS['qa-verification']).toContain('test-runner');
  });

  it('knows every skill id the shipped manifests grant', () => {
    const agents = shipped();
    expect(agents).toHaveLength(19);
    expect(validateManifestSkills(agents, registry)).toEqual([]);
  });

  it('grants every shipped lane agent the skills its lane exercises', () => {
    const agents = shipped();
    const gaps = Object.entries(LANE_SKILL_REQUIREMENTS).flatMap(([lane, ids]) => {
      const owner = agents.find((a) => a.lanes.includes(lane));
      if (!owner) return [];
      return ids.filter((id) => !owner.allowedSkills.includes(id)).map((id) => `${owner.id}/${lane}: ${id}`);
    });
    expect(gaps).toEqual([]);
  });

  it('names the manifest file and field of every unknown skill id', () => {
    const problems = validateManifestSkills(
      [
        { id: 'a', manifestPath: '/x/agents/a/agent.config.json', allowedSkills: ['workspace-read', 'teleport'] },
        { id: 'b', manifestPath: '/x/agents/b/agent.config.json', allowedSkills: [] },
      ],
      registry,
    );
    expect(problems).toEqual([
      {
        manifestPath: '/x/agents/a/agent.config.json',
        field: 'allowedSkills',
        message: 'agent a is granted unknown skill "teleport" (not in the skill registry src/agents/skills.ts)',
      },
    ]);
    expect(formatManifestSkillProblem(problems[0]!)).toBe(
      'invalid agent manifest /x/agents/a/agent.config.json: allowedSkills: agent a is granted unknown skill "teleport" (not in the skill registry src/agents/skills.ts)',
    );
  });
});
