import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

/**
 * Only the refusal path can be driven over HTTP: the lane reads its allow settings from the
 * reserved `__marketResearch` payload key, which the trigger route refuses from callers, so a
 * run through the service always uses the safe defaults (no private hosts, built-in allowlist).
 * Fetching a local page is covered by the unit tests, which pass those settings directly.
 */
describe('market-research lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let site: Server;
  let origin: string;
  let requests = 0;

  beforeAll(async () => {
    site = createServer((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Internal price list</title><p>$1/month</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const base = tempDir();
    mkdirSync(join(base, 'workspace'), { recursive: true });
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
    site?.close();
  });

  it('refuses a loopback URL without fetching it and fails the run with the refusal reason', async () => {
    const res = await api.trigger('market-research', { urls: [`${origin}/pricing`] });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(requests).toBe(0);
    const reason = '127.0.0.1 is a loopback address; private hosts are not allowed (marketResearch.allowPrivateHosts is false)';
    expect(run.result).toMatchObject({
      success: false,
      fetchedCount: 0,
      refusedCount: 1,
      policy: { allowPrivateHosts: false, settingsFrom: 'service' },
      specialistContract: { role: 'market-research-agent', status: 'refused' },
    });
    expect(run.result.sources).toEqual([
      expect.objectContaining({ url: `${origin}/pricing`, status: 'refused', httpStatus: null, title: null, reason }),
    ]);
    expect(run.result.specialistContract.refusalReason).toContain(reason);
  });

  it('refuses the reserved __marketResearch key at the trigger route', async () => {
    const res = await api.trigger('market-research', {
      urls: [`${origin}/pricing`],
      __marketResearch: { allowPrivateHosts: true, allowedDomains: ['127.0.0.1'] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('reserved_field');
    expect(requests).toBe(0);
  });

  it('derives a source plan from a query without fetching anything', async () => {
    const res = await api.trigger('market-research', { query: 'Stripe payments pricing' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result.sources).toEqual([]);
    expect(run.result.sourcePlan[0]).toMatchObject({ domain: 'stripe.com', suggestedUrls: ['https://stripe.com/pricing'], matchedTerms: ['payments', 'pricing'] });
    expect(run.result.operatorSummary).toMatch(/^Nothing was fetched/);
  });
});
