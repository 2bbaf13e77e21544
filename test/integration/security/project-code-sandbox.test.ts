import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { TEST_KEYS, testKeyRotation } from '../../support/keys.js';
import { AGENTS_DIR } from '../../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import { BUBBLEWRAP, NEEDS_BUBBLEWRAP } from '../../support/sandbox.js';

/**
 * Project code (a test script qa-verification runs in execute mode, the verification script of
 * build-refactor) against the real built service: a hostile project's test script looks for the
 * service's API key and webhook secret in every process's environment and command line it can
 * read under /proc, and reads a file of another project and one outside the workspace. None of
 * that may reach a run record, the service's log or the persistence export.
 *
 * The secrets carry a canary prefix, and the probe prints only what carries it (a real attacker
 * would print everything; on a busy host that would push the findings out of the output tail).
 */
const CANARY = 'sbxcanary';
const nonce = randomBytes(8).toString('hex');
const API_KEY_SECRET = `${CANARY}-apikey-${nonce}`;
const WEBHOOK_SECRET = `${CANARY}-webhook-${nonce}`;
const OUTSIDE_CONTENT = `${CANARY}-outside-${nonce}`;
const SIBLING_CONTENT = `${CANARY}-sibling-${nonce}`;
const SECRETS = { 'API key': API_KEY_SECRET, 'webhook secret': WEBHOOK_SECRET, 'file outside the workspace': OUTSIDE_CONTENT, "another project's file": SIBLING_CONTENT };

/** The project's test script: CommonJS, no dependencies, always exits 0 so every run finishes and records its output. */
function probeScript(paths: string[]): string {
  return `const fs = require('node:fs');
const found = new Map();
let read = 0;
for (const pid of fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
  for (const file of ['environ', 'cmdline']) {
    let text;
    try { text = fs.readFileSync('/proc/' + pid + '/' + file, 'latin1'); } catch { continue; }
    read += 1;
    for (const match of text.match(/${CANARY}-[a-z]+-[0-9a-f]+/g) ?? []) if (!found.has(match)) found.set(match, '/proc/' + pid + '/' + file);
  }
}
for (const [match, where] of found) console.log('probe found ' + match + ' in ' + where);
for (const path of ${JSON.stringify(paths)}) {
  try { console.log('probe read ' + path + ': ' + fs.readFileSync(path, 'utf8').trim()); } catch (err) { console.log('probe could not read ' + path + ': ' + err.code); }
}
console.log('probe done: ' + read + ' /proc files read, ' + found.size + ' canaries found');
`;
}

/** The service's keys: the shared test keys plus one distinctive admin key the probe hunts for. */
function keyRotation(): string {
  return JSON.stringify([...(JSON.parse(testKeyRotation()) as unknown[]), { key: API_KEY_SECRET, label: 'sandbox-canary', role: 'admin' }]);
}

/** A folder holding node, npm and the shell npm runs scripts with, and nothing else: a PATH on which bubblewrap cannot be found. */
function pathWithoutBubblewrap(): string {
  const bin = tempDir('no-bwrap-bin-');
  const onPath = (name: string) => {
    const found = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name)).find((file) => existsSync(file));
    if (!found) throw new Error(`${name} is not on PATH`);
    return realpathSync(found);
  };
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(onPath('npm'), join(bin, 'npm'));
  symlinkSync(onPath('sh'), join(bin, 'sh'));
  return bin;
}

interface ProbeService extends RuntimeService {
  workspace: string;
}

/**
 * Starts the built service with the shipped agents, the canary secrets in its environment and a
 * hostile project in its workspace, beside another project's file and a file outside it.
 */
async function startProbeService(config: Record<string, unknown>, env: Record<string, string> = {}): Promise<ProbeService> {
  const base = tempDir('sandbox-security-');
  const workspace = join(base, 'workspace');
  const outsideFile = join(base, 'outside-the-workspace.txt');
  const siblingFile = join(workspace, 'apps', 'payroll', 'salaries.txt');
  mkdirSync(dirname(siblingFile), { recursive: true });
  writeFileSync(outsideFile, `${OUTSIDE_CONTENT}\n`);
  writeFileSync(siblingFile, `${SIBLING_CONTENT}\n`);
  mkdirSync(join(workspace, 'apps', 'hostile'), { recursive: true });
  writeFileSync(join(workspace, 'apps', 'hostile', 'package.json'), JSON.stringify({ name: 'hostile', private: true, scripts: { test: 'node probe.cjs' } }));
  writeFileSync(join(workspace, 'apps', 'hostile', 'probe.cjs'), probeScript([outsideFile, siblingFile]));
  writeFileSync(join(workspace, 'apps', 'hostile', 'notes.md'), 'notes\n');
  const started = await startRuntimeService({ agentsDir: AGENTS_DIR, ...config }, base, { API_KEY_ROTATION: keyRotation(), WEBHOOK_SECRET, ...env });
  return { ...started, workspace };
}

async function runQa(svc: ProbeService) {
  const res = await svc.api.trigger('qa-verification', { target: 'apps/hostile', mode: 'execute' });
  expect(res.status).toBe(202);
  return waitForTerminal(svc.api, res.body.runId, 60_000);
}

async function runBuildRefactor(svc: ProbeService) {
  const held = await svc.api.trigger('build-refactor', {
    scope: 'apps/hostile',
    testRunner: { script: 'test' },
    changes: [{ path: 'apps/hostile/notes.md', content: 'notes, revised\n' }],
  });
  expect(held.status).toBe(202);
  const decision = await svc.api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved', note: 'probe' });
  expect(decision.status).toBe(200);
  return waitForTerminal(svc.api, `approval-replay:${held.body.taskId}`, 60_000);
}

/** Which secrets a text holds, by name. */
function leaked(text: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name);
}

/** Every place a viewer or an admin can read: the run records (as GET answers them), the service's log, the export. */
async function exposure(svc: ProbeService, runIds: string[]): Promise<Record<string, string[]>> {
  const places: Record<string, string[]> = {};
  for (const runId of runIds) places[`run ${runId}`] = leaked(JSON.stringify((await svc.api.run(runId)).body));
  places['service log'] = leaked(svc.service.output.join('\n'));
  const exported = await fetch(`${svc.service.url}/api/persistence/export`, { headers: { authorization: `Bearer ${TEST_KEYS.admin}` } });
  expect(exported.status).toBe(200);
  places['persistence export'] = leaked(await exported.text());
  return places;
}

const nothingLeaked = (places: Record<string, string[]>) => Object.fromEntries(Object.keys(places).map((place) => [place, []]));

describe.skipIf(!BUBBLEWRAP)(`project code in the real service, sandboxed by default${NEEDS_BUBBLEWRAP}`, () => {
  let svc: ProbeService;
  beforeAll(async () => {
    svc = await startProbeService({});
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('qa-verification and build-refactor run the probe in bubblewrap, and no secret or outside file reaches a record, the log or the export', async () => {
    const qa = await runQa(svc);
    expect(qa.status).toBe('success');
    expect(qa.result).toMatchObject({ success: true, mode: 'execute', sandbox: 'bubblewrap', exitCode: 0 });
    expect(qa.result.outputTail).toMatch(/probe done: \d+ \/proc files read, 0 canaries found/);
    expect(qa.result.outputTail).toMatch(/probe could not read .*outside-the-workspace.txt: ENOENT/);
    expect(qa.result.outputTail).toMatch(/probe could not read .*salaries.txt: ENOENT/);

    const refactor = await runBuildRefactor(svc);
    expect(refactor.status).toBe('success');
    expect(refactor.result.verification).toMatchObject({ verdict: 'passed', sandbox: 'bubblewrap' });
    expect(refactor.result.verification.outputTail).toMatch(/probe done: \d+ \/proc files read, 0 canaries found/);
    expect(readFileSync(join(svc.workspace, 'apps', 'hostile', 'notes.md'), 'utf8')).toBe('notes, revised\n');

    const places = await exposure(svc, [qa.runId, refactor.runId]);
    expect(places).toEqual(nothingLeaked(places));
  });
});

/**
 * The same probe with the sandbox forced off: bubblewrap hidden (a PATH without it) and the
 * operator's opt-in set. The probe then reaches what the sandboxed case must not find, which
 * shows the checks above can see a leak (the service's own secrets it finds reach the record
 * replaced, as every record is redacted; the files it reads reach it as they are); the run says
 * it ran UNSANDBOXED.
 */
describe('project code in the real service without bubblewrap', () => {
  const hidden = pathWithoutBubblewrap();

  describe('with sandbox.allowUnsandboxed', () => {
    let svc: ProbeService;
    beforeAll(async () => {
      svc = await startProbeService({ sandbox: { allowUnsandboxed: true } }, { PATH: hidden });
    });
    afterAll(async () => {
      await svc?.service.kill();
    });

    it('runs UNSANDBOXED and says so, and the probe reaches the secrets (the checks can see a leak)', async () => {
      const qa = await runQa(svc);
      expect(qa.status, qa.result.outputTail).toBe('success');
      expect(qa.result).toMatchObject({ success: true, sandbox: 'none', sandboxNote: expect.stringContaining('ran UNSANDBOXED') });
      expect(qa.result.operatorSummary).toContain('Ran UNSANDBOXED');
      // The probe found the service's key and webhook secret in /proc: they reach the record as
      // the redaction marker (records are redacted like run logs), the files it read as they are.
      expect(qa.result.outputTail).toMatch(/probe done: \d+ \/proc files read, 2 canaries found/);
      expect(qa.result.outputTail.match(/probe found \[redacted:secret\] in \/proc\//g)).toHaveLength(2);
      const places = await exposure(svc, [qa.runId]);
      const files = ['file outside the workspace', "another project's file"];
      expect(places[`run ${qa.runId}`]).toEqual(files);
      expect(places['persistence export']).toEqual(files);
    });
  });

  describe('without the opt-in (the default)', () => {
    let svc: ProbeService;
    beforeAll(async () => {
      svc = await startProbeService({}, { PATH: hidden });
    });
    afterAll(async () => {
      await svc?.service.kill();
    });

    it('refuses qa-verification in execute mode and a verified build-refactor, running nothing', async () => {
      const qa = await runQa(svc);
      expect(qa.status).toBe('failed');
      expect(qa.result).toMatchObject({ success: false, error: expect.stringContaining('no sandbox is available on this host (install bubblewrap)') });
      expect(qa.result.recommendedNextActions).toEqual([expect.stringMatching(/Install bubblewrap .*or set sandbox.allowUnsandboxed/)]);
      expect(qa.result).not.toHaveProperty('outputTail');

      const refactor = await runBuildRefactor(svc);
      expect(refactor.status).toBe('failed');
      expect(refactor.result).toMatchObject({ success: false, filesChanged: [], verification: null });
      expect(refactor.result.error).toContain('no sandbox is available on this host');
      expect(readFileSync(join(svc.workspace, 'apps', 'hostile', 'notes.md'), 'utf8')).toBe('notes\n');

      const dryRun = await svc.api.trigger('qa-verification', { target: 'apps/hostile' });
      expect((await waitForTerminal(svc.api, dryRun.body.runId, 30_000)).status).toBe('success');
    });

    it('lets no client opt itself in: __sandbox is a reserved field at the trigger route', async () => {
      const res = await svc.api.trigger('qa-verification', { target: 'apps/hostile', mode: 'execute', __sandbox: { allowUnsandboxed: true } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('reserved_field');
    });
  });
});
