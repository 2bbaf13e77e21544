import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

const SOURCE = {
  name: 'Ledger API',
  description:
    'Ledger API records customer invoices and reconciles card payments every night. It is rolling out to the EU region this week. ' +
    'During the rollout, invoice exports may be delayed by up to an hour. Users must re-authenticate their API tokens after the switch.',
};

describe('content-generate lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    mkdirSync(join(base, 'workspace'), { recursive: true });
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('writes a client-facing operator notice from the source into the run result', async () => {
    const res = await api.trigger('content-generate', { type: 'operator-notice', source: SOURCE, style: 'client-facing', length: 'medium' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      type: 'operator-notice',
      style: 'client-facing',
      length: 'medium',
      title: 'Notice: Ledger API',
      specialistContract: { role: 'content-agent', status: 'completed' },
    });
    expect(run.result.sections.map((s: { heading: string }) => s.heading)).toEqual(['What', 'Impact', 'Action', 'Details']);
    expect(run.result.content).toContain('We want to keep you informed about Ledger API.');
    expect(run.result.content).toContain('During the rollout, invoice exports may be delayed by up to an hour.');
    expect(run.result.content).toContain('You must re-authenticate your API tokens after the switch.');
    expect(run.result.content).toContain('Ledger API is rolling out to the EU region this week.');
    expect(run.result.wordCount).toBeGreaterThan(50);
  });

  it('fails the run with the reason when the source has no description', async () => {
    const res = await api.trigger('content-generate', { type: 'readme', source: { name: 'Ledger API', description: '' } });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(run.result.specialistContract).toMatchObject({
      status: 'refused',
      refusalReason: 'payload.source.description is blank: the text is written from it, and nothing is made up in its place',
    });
  });
});
