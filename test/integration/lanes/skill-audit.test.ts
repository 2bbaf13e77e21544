import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_SKILL_REQUIREMENTS, loadSkillRegistry } from '../../../src/agents/skills.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

/** The shipped manifests, read from disk the way the service reads them. */
function manifests(): Array<{ id: string; lanes: string[]; allowedSkills: string[] }> {
  return readdirSync(AGENTS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => JSON.parse(readFileSync(join(AGENTS, e.name, 'agent.config.json'), 'utf8')));
}

describe('skill-audit lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    running = await startRuntimeService({ agentsDir: AGENTS });
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('audits the grants of every shipped agent against the registry and the lane table', async () => {
    const { api } = running!;
    const res = await api.trigger('skill-audit', {});
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    const result = run.result;
    expect(result.success).toBe(true);
    expect(['clear', 'watching', 'blocked']).toContain(result.posture);
    expect(result.specialistContract).toMatchObject({ role: 'skill-audit-agent', status: 'completed' });
    expect(result.registryDigest).toBe(loadSkillRegistry().digest);

    const shipped = manifests();
    expect(result.agents).toHaveLength(shipped.length);
    const registry = loadSkillRegistry();
    for (const manifest of shipped) {
      const audited = result.agents.find((a: { agentId: string }) => a.agentId === manifest.id);
      expect(audited.grantedSkills).toEqual(manifest.allowedSkills);
      expect(audited.declaredOnlyGrants).toEqual(manifest.allowedSkills.filter((id) => registry.get(id)?.executability === 'declared'));
      expect(audited.requiredSkills).toEqual([...new Set(manifest.lanes.flatMap((l) => LANE_SKILL_REQUIREMENTS[l] ?? []))]);
    }

    // drift-repair and community-response pass no tool gate: their grants are not tied to use.
    const docSpecialist = result.agents.find((a: { agentId: string }) => a.agentId === 'doc-specialist');
    expect(docSpecialist.lanesWithoutRequirements).toEqual(['drift-repair']);
    expect(docSpecialist.governanceDepth.level).toBe('shallow');
    expect(result.findings).toContainEqual(expect.objectContaining({ agentId: 'doc-specialist', kind: 'no-requirement-record', severity: 'medium' }));
    // community-helper holds llm-draft, which nothing in this build executes.
    expect(result.findings).toContainEqual(
      expect.objectContaining({ agentId: 'community-helper', kind: 'declared-only-grant', skillIds: expect.arrayContaining(['llm-draft']) }),
    );
    // The audit's own run counts as its lane running.
    const self = result.agents.find((a: { agentId: string }) => a.agentId === 'skill-audit-agent');
    expect(self).toMatchObject({ missingSkills: [], unusedGrants: [], lanesRan: true });
    expect(self.governanceDepth.level).toBe('governed');
  });

  it('audits one agent, and refuses an unknown one with the reason', async () => {
    const { api } = running!;
    const one = await waitForTerminal(api, (await api.trigger('skill-audit', { agentId: 'build-refactor-agent' })).body.runId);
    expect(one.status).toBe('success');
    expect(one.result.scope).toBe('build-refactor-agent');
    expect(one.result.agents.map((a: { agentId: string }) => a.agentId)).toEqual(['build-refactor-agent']);
    expect(one.result.agents[0].highRiskGrants).toEqual(expect.arrayContaining(['workspace-write', 'npm-script-runner']));

    const unknown = await waitForTerminal(api, (await api.trigger('skill-audit', { agentId: 'ghost-agent' })).body.runId);
    expect(unknown.status).toBe('failed');
    expect(unknown.result.specialistContract.refusalReason).toBe('unknown agent "ghost-agent": no such agent in the registry');
  });
});
