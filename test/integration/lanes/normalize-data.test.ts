import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('normalize-data lane through the service', () => {
  let service: ServiceProcess | undefined;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    mkdirSync(join(base, 'workspace'), { recursive: true });
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('normalizes inline records, rejecting the bad one and removing the duplicate', async () => {
    const res = await api.trigger('normalize-data', {
      records: [
        { customer: 'Okafor, Ada', email: 'Ada@Example.com', amount: '1,200.00', paidOn: '2026-03-02' },
        { customer: 'Bram de Vries', email: 'bram@example', amount: '99.50', paidOn: '2026-02-30' },
        { customer: 'Ada Okafor', email: 'ada@example.com', amount: '15', paidOn: '2026-03-05' },
      ],
      schema: { customer: 'string', email: { type: 'email', required: true }, amount: 'number', paidOn: 'date' },
      dedupeBy: ['email'],
    });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      records: [{ customer: 'Okafor, Ada', email: 'ada@example.com', amount: 1200, paidOn: '2026-03-02' }],
      rejected: [
        { index: 1, reasons: ['email: "bram@example" is not a valid email address', 'paidOn: "2026-02-30" is not a real date (2026-02 has no day 30)'] },
      ],
      duplicates: [{ index: 2, duplicateOf: 0 }],
      stats: { input: 3, output: 1, rejected: 1, duplicatesRemoved: 1, coercions: 2 },
      specialistContract: { role: 'normalization-agent', status: 'partial' },
    });
  });

  it('refuses a schema with an unknown type at trigger time', async () => {
    const res = await api.trigger('normalize-data', { records: [{ a: '1' }], schema: { a: 'decimal' } });
    expect(res.status).toBe(400);
  });
});
