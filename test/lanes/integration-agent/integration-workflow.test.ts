import { describe, expect, it } from 'vitest';
import { planIntegrationWorkflow } from '../../../agents/integration-agent/integration-workflow.js';
import { DEFAULT_WORKFLOW, normalizeSteps } from '../../../agents/integration-agent/normalize-steps.js';

const context = { workspaceRoot: '/w', runId: 'wf' };

describe('integration-workflow lane: planning', () => {
  it('falls back to the default workflow when no steps are given', () => {
    const plan = planIntegrationWorkflow({}, context);
    if (!plan.success) throw new Error(plan.error);
    expect(plan.usedDefaultWorkflow).toBe(true);
    expect(plan.steps.map((s) => s.type)).toEqual(['system-monitor', 'incident-triage', 'control-plane-brief']);
    expect(plan.steps).toHaveLength(DEFAULT_WORKFLOW.length);
    expect(plan.steps.map((s) => s.runId)).toEqual(['wf:step-1', 'wf:step-2', 'wf:step-3']);
  });

  it('normalizes the shorthand `<task-type>: <description>` and explicit steps', () => {
    const { steps, problems } = normalizeSteps([
      'security-audit:  scan the sample app ',
      { type: 'code-index', payload: { scope: 'projects/app' }, description: 'index it', reroute: 'system-monitor' },
    ]);
    expect(problems).toEqual([]);
    expect(steps[0]).toMatchObject({ type: 'security-audit', description: 'scan the sample app', payload: {}, origin: 'shorthand', reroute: 'incident-triage' });
    expect(steps[1]).toMatchObject({ type: 'code-index', payload: { scope: 'projects/app' }, origin: 'object', reroute: 'system-monitor' });
  });

  it('refuses unknown, internal and recursive step types, naming every bad step', () => {
    const plan = planIntegrationWorkflow(
      { steps: ['make-coffee: now', 'heartbeat: tick', { type: 'integration-workflow' }, 'no colon here', 'summarize-content: ok'] },
      context,
    );
    expect(plan.success).toBe(false);
    if (plan.success) return;
    expect(plan.specialistContract.status).toBe('refused');
    expect(plan.error).toContain("step 1: type 'make-coffee' is not a task type");
    expect(plan.error).toContain("step 2: type 'heartbeat' is internal-only");
    expect(plan.error).toContain("step 3: type 'integration-workflow' cannot run inside a workflow");
    expect(plan.error).toContain('step 4: ');
    expect(plan.error).not.toContain('step 5');
  });
});
