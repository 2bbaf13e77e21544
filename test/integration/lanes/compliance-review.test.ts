import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

const MIT_LICENSE = `MIT License

Copyright (c) 2024 Invoice Tools

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
`;

/** An MIT project whose installed dependencies include a GPL-3.0 package. */
function writeFixtureProject(dir: string): void {
  mkdirSync(join(dir, 'node_modules', 'pdf-gpl'), { recursive: true });
  mkdirSync(join(dir, 'node_modules', 'dayjs'), { recursive: true });
  writeFileSync(join(dir, 'LICENSE'), MIT_LICENSE);
  writeFileSync(join(dir, 'README.md'), '# Invoices\n\nRenders invoices as PDF.\n');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'invoices', version: '1.0.0', license: 'MIT', dependencies: { 'pdf-gpl': '^3.0.0', dayjs: '^1.11.0' } }, null, 2),
  );
  writeFileSync(join(dir, 'node_modules', 'pdf-gpl', 'package.json'), JSON.stringify({ name: 'pdf-gpl', version: '3.2.0', license: 'GPL-3.0-or-later' }));
  writeFileSync(join(dir, 'node_modules', 'dayjs', 'package.json'), JSON.stringify({ name: 'dayjs', version: '1.11.10', license: 'MIT' }));
}

describe('compliance-review lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    writeFixtureProject(join(base, 'workspace', 'apps', 'invoices'));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('blocks the MIT project for its GPL dependency and reports every licence', async () => {
    const res = await api.trigger('compliance-review', { scope: 'apps/invoices' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      posture: 'blocked',
      licence: { spdx: 'MIT', category: 'permissive', identifiedByText: ['MIT'] },
      specialistContract: { role: 'compliance-agent', status: 'completed' },
    });
    expect(run.result.dependencies).toEqual([
      expect.objectContaining({ name: 'pdf-gpl', licence: 'GPL-3.0-or-later', category: 'strong-copyleft', installedVersion: '3.2.0' }),
      expect.objectContaining({ name: 'dayjs', licence: 'MIT', category: 'permissive' }),
    ]);
    expect(run.result.checks).toContainEqual(expect.objectContaining({ check: 'copyleft-dependencies', status: 'fail', evidence: expect.stringContaining('pdf-gpl') }));
    expect(run.result.checks).toContainEqual(expect.objectContaining({ check: 'readme-present', status: 'pass' }));
  });

  it('fails the run when the scope is a file, not a project folder', async () => {
    const res = await api.trigger('compliance-review', { scope: 'apps/invoices/README.md' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(run.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(/is a file/) });
  });
});
