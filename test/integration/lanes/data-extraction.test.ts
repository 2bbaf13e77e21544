import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('data-extraction lane through the service', () => {
  let service: ServiceProcess | undefined;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    const exports = join(base, 'workspace', 'exports');
    mkdirSync(exports, { recursive: true });
    writeFileSync(
      join(exports, 'invoices.csv'),
      ['invoice,customer,amount', 'INV-001,"Okafor, Ada",1200.00', 'INV-002,Bram de Vries,99.50,EUR', 'INV-003,"Chen ""CW"" Wei",15.00'].join('\r\n'),
    );
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('extracts records from a workspace CSV file and reports the bad row', async () => {
    const res = await api.trigger('data-extraction', { source: { path: 'exports/invoices.csv' } });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      format: 'csv',
      formatInferred: true,
      source: { kind: 'file', path: 'exports/invoices.csv' },
      columns: ['invoice', 'customer', 'amount'],
      recordCount: 2,
      records: [
        { invoice: 'INV-001', customer: 'Okafor, Ada', amount: '1200.00' },
        { invoice: 'INV-003', customer: 'Chen "CW" Wei', amount: '15.00' },
      ],
      rejects: [{ line: 3, reason: 'expected 3 fields, found 4', raw: 'INV-002,Bram de Vries,99.50,EUR' }],
      specialistContract: { role: 'data-extraction-agent', status: 'partial' },
    });
  });

  it('refuses a path that leaves the workspace at trigger time', async () => {
    const res = await api.trigger('data-extraction', { source: { path: '../outside.csv' }, format: 'csv' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('escapes the workspace root');
  });
});
