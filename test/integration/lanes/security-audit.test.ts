import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');
// Assembled at run time so the test source does not itself hold the planted credential.
const PLANTED_PASSWORD = ['pr0d', 'Ledger', '!2024', 'x'].join('');

/** A small service repo with a committed .env secret and an eval of request input. */
function writeFixtureRepo(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'ledger-api', version: '0.1.0', dependencies: { express: '^4.19.2' } }, null, 2));
  writeFileSync(join(dir, '.env'), `NODE_ENV=production\nLEDGER_DB_PASSWORD=${PLANTED_PASSWORD}\n`);
  writeFileSync(
    join(dir, 'src', 'calc.js'),
    "export function calculate(req, res) {\n  const formula = req.body.formula;\n  res.json({ total: eval(formula) });\n}\n",
  );
}

describe('security-audit lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    writeFixtureRepo(join(base, 'workspace', 'services', 'ledger'));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('finds the planted .env secret (masked) and the eval, ranked by exploitability', async () => {
    const res = await api.trigger('security-audit', { type: 'scan', scope: 'services/ledger' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      type: 'scan',
      scope: 'services/ledger',
      rulesRun: ['secret-patterns', 'secret-entropy', 'dangerous-code', 'dependency-declarations', 'file-permissions'],
      specialistContract: { role: 'security-agent', status: 'completed' },
    });
    expect(run.result.findings).toContainEqual({
      rule: 'credential-assignment',
      severity: 'high',
      file: 'services/ledger/.env',
      line: 2,
      evidence: 'LEDGER_DB_PASSWORD = pr0d…(16 chars)',
    });
    expect(run.result.findings).toContainEqual(
      expect.objectContaining({ rule: 'eval-call', severity: 'high', file: 'services/ledger/src/calc.js', line: 3 }),
    );
    expect(run.result.exploitabilityRanking[0]).toMatchObject({ rank: 1, rule: 'credential-assignment', file: 'services/ledger/.env' });
    expect(JSON.stringify(run)).not.toContain(PLANTED_PASSWORD);
  });

  it('fails the run when the scope does not exist', async () => {
    const res = await api.trigger('security-audit', { type: 'secrets', scope: 'services/missing' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(run.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(/does not exist/) });
  });
});
