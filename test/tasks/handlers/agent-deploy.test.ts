import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentDeploy } from '../../../src/lanes/agent-deploy/handler.js';
import { applyOutcome, freshState, handlerInput, shownFile } from '../../support/handlers.js';
import { fixedClock } from '../../support/clocks.js';
import { handlerConfig } from '../../support/config.js';
import { expectNothingOf, POSIX, uniqueMarker } from '../../support/outside-files.js';

function setupTemplates() {
  const config = handlerConfig({ agentsDir: './agent-templates' });
  const template = join(config.agentsDir, 'doc-specialist');
  mkdirSync(join(template, 'src'), { recursive: true });
  writeFileSync(join(template, 'agent.config.json'), JSON.stringify({ id: 'doc-specialist' }));
  writeFileSync(join(template, 'SOUL.md'), '# Doc specialist');
  writeFileSync(join(template, 'src', 'index.js'), 'console.log("hi")');
  return { config, template };
}

interface DeployResult {
  agentName: string;
  deployPath: string;
  deploymentMetadata: Record<string, unknown>;
}

describe('agent-deploy handler', () => {
  it('copies the template, writes DEPLOYMENT.json and records the deployment in state', async () => {
    const { config } = setupTemplates();
    const payload = { agentName: 'doc-specialist', version: '1.2.0', tags: ['docs', 'pilot'], config: { tier: 'small' } };
    const outcome = await agentDeploy(freshState(), config, handlerInput('agent-deploy', payload));

    expect(outcome.status).toBe('completed');
    const result = outcome.result as DeployResult;
    expect(result.agentName).toBe('doc-specialist');
    expect(result.deployPath).toBe('deployments/doc-specialist-2024-05-01T12-00-00-000Z');
    const deployDir = shownFile(config, result.deployPath);
    expect(result.deploymentMetadata).toMatchObject({ version: '1.2.0', tags: ['docs', 'pilot'], config: { tier: 'small' }, filesCopied: 3 });

    expect(readFileSync(join(deployDir, 'SOUL.md'), 'utf8')).toBe('# Doc specialist');
    expect(existsSync(join(deployDir, 'src', 'index.js'))).toBe(true);
    const deployment = JSON.parse(readFileSync(join(deployDir, 'DEPLOYMENT.json'), 'utf8'));
    expect(deployment).toMatchObject({
      agentName: 'doc-specialist',
      deployPath: result.deployPath,
      deployedAt: '2024-05-01T12:00:00.000Z',
      runId: 'run-agent-deploy-1',
      metadata: { version: '1.2.0', tags: ['docs', 'pilot'] },
    });

    const state = applyOutcome(freshState(), outcome);
    expect(state.deployedAgents).toEqual([
      {
        timestamp: '2024-05-01T12:00:00.000Z',
        agentName: 'doc-specialist',
        deployPath: result.deployPath,
        metadata: { version: '1.2.0', tags: ['docs', 'pilot'], config: { tier: 'small' } },
      },
    ]);
  });

  it('uses deployName for the directory and refuses an existing target', async () => {
    const { config } = setupTemplates();
    const clock = fixedClock('2024-06-01T00:00:00.000Z');
    const payload = { agentName: 'doc-specialist', deployName: 'docs-eu' };
    const first = await agentDeploy(freshState(), config, handlerInput('agent-deploy', payload, { clock }));
    expect((first.result as DeployResult).deployPath).toBe('deployments/docs-eu-2024-06-01T00-00-00-000Z');

    const again = await agentDeploy(freshState(), config, handlerInput('agent-deploy', payload, { clock }));
    expect(again).toEqual({ status: 'error', error: expect.stringContaining('already exists') });
    expect(again.stateUpdate).toBeUndefined();
  });

  it('fails for an unknown template', async () => {
    const { config } = setupTemplates();
    const outcome = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: 'no-such-agent' }));
    expect(outcome.status).toBe('error');
    expect(outcome.error).toContain("unknown agent template 'no-such-agent'");
  });

  it('deploys from a workspace templatePath and refuses one outside the workspace', async () => {
    const { config } = setupTemplates();
    mkdirSync(join(config.workspaceRoot, 'templates', 'custom'), { recursive: true });
    writeFileSync(join(config.workspaceRoot, 'templates', 'custom', 'SOUL.md'), '# Custom');
    const ok = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: 'custom', templatePath: 'templates/custom' }));
    expect(readFileSync(join(shownFile(config, (ok.result as DeployResult).deployPath), 'SOUL.md'), 'utf8')).toBe('# Custom');

    const out = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: 'x', templatePath: '../agent-templates/doc-specialist' }));
    expect(out).toEqual({ status: 'error', error: expect.stringContaining('templatePath refused') });
  });

  it('does not copy symbolic links out of the template', async () => {
    const { config, template } = setupTemplates();
    writeFileSync(join(config.baseDir, 'secret.txt'), 'secret');
    symlinkSync(join(config.baseDir, 'secret.txt'), join(template, 'leak.txt'));
    const outcome = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: 'doc-specialist' }));
    const result = outcome.result as DeployResult;
    expect(() => lstatSync(join(shownFile(config, result.deployPath), 'leak.txt'))).toThrow();
    expect(result.deploymentMetadata.skippedSymlinks).toEqual(['leak.txt']);
  });

  it.skipIf(!POSIX)('does not copy a hard-linked file of the template, and says why', async () => {
    const { config, template } = setupTemplates();
    const marker = uniqueMarker('agent-deploy');
    const outside = join(config.baseDir, 'outside-secret.txt');
    writeFileSync(outside, marker);
    linkSync(outside, join(template, 'src', 'settings.txt'));
    const outcome = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: 'doc-specialist' }));
    expect(outcome.status).toBe('completed');
    const result = outcome.result as DeployResult;
    const deployDir = shownFile(config, result.deployPath);
    expect(existsSync(join(deployDir, 'src', 'settings.txt'))).toBe(false);
    expect(existsSync(join(deployDir, 'src', 'index.js'))).toBe(true);
    expect(result.deploymentMetadata).toMatchObject({
      filesCopied: 3,
      skipped: [{ path: 'src/settings.txt', reason: 'hard link (2 links): its content may live outside the workspace' }],
    });
    expectNothingOf(result, marker, config.baseDir);
  });

  it('fails on an invalid agentName without touching the disk', async () => {
    const { config } = setupTemplates();
    const outcome = await agentDeploy(freshState(), config, handlerInput('agent-deploy', { agentName: '../x' }));
    expect(outcome.status).toBe('error');
    expect(existsSync(config.deployBaseDir)).toBe(false);
  });
});
