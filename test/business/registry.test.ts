import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry, validateRegistry } from '../../src/business/registry.js';
import { SAMPLE_BUSINESS_REGISTRY } from '../../src/demo/sample-business-registry.js';
import { tempDir } from '../support/config.js';

const clone = () => JSON.parse(JSON.stringify(SAMPLE_BUSINESS_REGISTRY)) as Record<string, any>;

describe('business registry validation', () => {
  it('accepts the sample registry the demo seeds', () => {
    const { registry, problems } = validateRegistry(clone());
    expect(problems).toEqual([]);
    expect(registry?.schemaVersion).toBe('2.0.1');
  });

  it('refuses another schema version, naming the field', () => {
    const data = { ...clone(), schemaVersion: '1.4.0' };
    expect(validateRegistry(data).problems).toEqual([{ path: '/schemaVersion', message: "must be '2.0.1' (found \"1.4.0\")" }]);
  });

  it('names the field of a schema violation as a JSON Pointer', () => {
    const data = clone();
    data.businessRisks[0].likelihood = 9;
    const { registry, problems } = validateRegistry(data);
    expect(registry).toBeNull();
    expect(problems.map((p) => p.path)).toContain('/businessRisks/0/likelihood');
  });

  it('requires a reason for an unknown KPI value and an unknown deal value, never a guess', () => {
    const data = clone();
    delete data.strategicInitiatives[0].kpis[1].unknownReason;
    delete data.pipeline[1].valueUnknownReason;
    expect(validateRegistry(data).problems).toEqual([
      {
        path: '/strategicInitiatives/0/kpis/1/unknownReason',
        message: 'is required when current is null (an unknown KPI value is stated, never invented)',
      },
      { path: '/pipeline/1/valueUnknownReason', message: 'is required when valueUsd is null (an unknown value is stated, never invented)' },
    ]);
  });

  it('refuses a policy that would let the planner enqueue an unsafe lane, and duplicate ids', () => {
    const data = clone();
    data.approvalPolicy.autoEnqueueTaskTypes.push('build-refactor');
    data.coverageGaps[1].id = data.coverageGaps[0].id;
    expect(validateRegistry(data).problems).toEqual([
      { path: '/approvalPolicy/autoEnqueueTaskTypes/4', message: "'build-refactor' is not a safe internal lane the planner may enqueue" },
      { path: '/coverageGaps/1/id', message: "duplicates id 'no-reorder-tests'" },
    ]);
  });

  it('refuses more than one task per cycle and an internal action without a task type', () => {
    const data = clone();
    data.approvalPolicy.maxTasksPerCycle = 2;
    expect(validateRegistry(data).problems.map((p) => p.path)).toContain('/approvalPolicy/maxTasksPerCycle');
    const other = clone();
    delete other.coverageGaps[1].nextAction.taskType;
    expect(validateRegistry(other).problems).toEqual([{ path: '/coverageGaps/1/nextAction/taskType', message: 'is required for an internal-task action' }]);
  });

  it('loads a file, and reports a missing or broken one without throwing', async () => {
    const dir = tempDir('registry-');
    const missing = await loadRegistry(join(dir, 'absent.json'), dir);
    expect(missing).toMatchObject({ status: 'missing', reason: 'the business registry file does not exist' });
    writeFileSync(join(dir, 'bad.json'), '{"schemaVersion":');
    expect((await loadRegistry(join(dir, 'bad.json'), dir)).status).toBe('invalid');
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(SAMPLE_BUSINESS_REGISTRY));
    const ok = await loadRegistry(join(dir, 'ok.json'), dir);
    expect(ok.status).toBe('ok');
    expect(ok.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
});
