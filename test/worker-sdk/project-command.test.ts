import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bubblewrapArgs,
  bubblewrapAvailable,
  decideSandbox,
  projectFolder,
  runProjectCommand,
  sandboxPolicyOf,
  type SandboxKind,
} from '../../src/worker-sdk/project-command.js';
import { tempDir } from '../support/config.js';

const SECRET = 'sandbox-test-secret-7f3a9c';

/**
 * A project's "test script" as an attacker would write it: it looks for the secret in every
 * process environment it can read under /proc, reads a file outside the project, tries to write
 * outside it and to reach the network, and prints what it found.
 */
const PROBE = `
const fs = require('node:fs');
const found = { secretIn: [], outsideRead: null, outsideWrite: null, net: null };
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
  try { if (fs.readFileSync('/proc/' + pid + '/environ', 'utf8').includes(process.argv[2])) found.secretIn.push(pid); } catch {}
}
try { found.outsideRead = fs.readFileSync(process.argv[3], 'utf8'); } catch (e) { found.outsideRead = 'refused: ' + e.code; }
try { fs.writeFileSync(process.argv[4], 'x'); found.outsideWrite = 'written'; } catch (e) { found.outsideWrite = 'refused: ' + e.code; }
fs.writeFileSync('inside.txt', 'ok');
const net = require('node:net').connect(Number(process.argv[5]), '127.0.0.1');
net.on('connect', () => { found.net = 'connected'; net.destroy(); done(); });
net.on('error', (e) => { found.net = 'refused: ' + e.code; done(); });
function done() { console.log(JSON.stringify(found)); }
`;

describe('decideSandbox', () => {
  it('uses bubblewrap where it can, refuses without it unless the operator opted in', () => {
    expect(decideSandbox({ allowUnsandboxed: false }, true)).toMatchObject({ kind: 'bubblewrap' });
    expect(decideSandbox(undefined, false)).toEqual({ refused: expect.stringContaining('no sandbox is available') });
    expect(decideSandbox({ allowUnsandboxed: true }, false)).toMatchObject({ kind: 'none', note: expect.stringContaining('UNSANDBOXED') });
  });
});

describe('sandboxPolicyOf', () => {
  it('opts in only on allowUnsandboxed: true, whatever else the payload key holds', () => {
    expect(sandboxPolicyOf({ allowUnsandboxed: true })).toEqual({ allowUnsandboxed: true });
    for (const value of [undefined, null, 'yes', {}, { allowUnsandboxed: 'true' }, { allowUnsandboxed: 1 }, [true]]) {
      expect(sandboxPolicyOf(value), JSON.stringify(value)).toEqual({ allowUnsandboxed: false });
    }
  });
});

describe('projectFolder', () => {
  it('is the folder with its links resolved, and only inside the workspace', () => {
    const root = tempDir('project-folder-');
    const workspace = join(root, 'workspace');
    mkdirSync(join(workspace, 'projects', 'app'), { recursive: true });
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(workspace, 'projects', 'app'), join(workspace, 'app-link'));
    symlinkSync(join(root, 'elsewhere'), join(workspace, 'projects', 'escape'));
    const real = realpathSync(join(workspace, 'projects', 'app'));
    expect(projectFolder(workspace, join(workspace, 'projects', 'app'))).toEqual({ dir: real });
    expect(projectFolder(workspace, join(workspace, 'app-link'))).toEqual({ dir: real });
    expect(projectFolder(workspace, join(workspace, 'projects', 'escape'))).toEqual({ problem: expect.stringContaining('leads outside the workspace') });
    expect(projectFolder(workspace, join(workspace, 'gone'))).toEqual({ problem: expect.stringContaining('cannot be resolved (ENOENT)') });
  });
});

describe('bubblewrapArgs', () => {
  it('shares nothing but the system read-only and the project writable, with no network by default', () => {
    const args = bubblewrapArgs('npm', ['run', 'test'], { projectDir: '/srv/ws/projects/app' });
    expect(args.slice(0, 3)).toEqual(['--unshare-all', '--die-with-parent', '--new-session']);
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain('--bind /srv/ws/projects/app /srv/ws/projects/app --chdir /srv/ws/projects/app -- npm run test');
    expect(args.join(' ')).toContain('--proc /proc');
    expect(args).not.toContain('/srv/ws');
    expect(bubblewrapArgs('npm', [], { projectDir: '/p', network: true })).toContain('--share-net');
  });
});

describe.skipIf(!bubblewrapAvailable())('runProjectCommand against a hostile project', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  async function probe(sandbox: SandboxKind) {
    const root = tempDir('sandbox-');
    const project = join(root, 'workspace', 'projects', 'app');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'probe.cjs'), PROBE);
    const outsideFile = join(root, 'state', 'orchestrator-state.json');
    mkdirSync(join(root, 'state'));
    writeFileSync(outsideFile, 'service state');
    // A stand-in for the service: a process whose environment holds a key.
    const service = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { PATH: process.env.PATH ?? '', API_KEY: SECRET }, stdio: 'ignore' });
    children.push(service);
    await new Promise((r) => setTimeout(r, 200));
    const server = (await import('node:net')).createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const outcome = await runProjectCommand(process.execPath, ['probe.cjs', SECRET, outsideFile, join(root, 'state', 'written-by-project'), String(port)], {
        projectDir: project,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        timeoutMs: 20_000,
        outputCapBytes: 64 * 1024,
        sandbox,
      });
      expect(outcome.exitCode, outcome.output).toBe(0);
      return { found: JSON.parse(outcome.output.trim().split('\n').pop()!) as Record<string, unknown>, root, project, outcome };
    } finally {
      server.close();
    }
  }

  it('unsandboxed, the probe finds what the sandbox must hide (the test can see a leak)', async () => {
    const { found } = await probe('none');
    expect((found.secretIn as string[]).length).toBeGreaterThan(0);
    expect(found.outsideRead).toBe('service state');
    expect(found.net).toBe('connected');
  });

  it('in bubblewrap, it sees no other process, reads and writes nothing outside the project, and has no network', async () => {
    const { found, root, project, outcome } = await probe('bubblewrap');
    expect(outcome.sandbox).toBe('bubblewrap');
    expect(found.secretIn).toEqual([]);
    expect(found.outsideRead).toMatch(/^refused/);
    expect(found.outsideWrite).toMatch(/^refused/);
    expect(existsSync(join(root, 'state', 'written-by-project'))).toBe(false);
    expect(found.net).toMatch(/^refused/);
    expect(readFileSync(join(project, 'inside.txt'), 'utf8')).toBe('ok');
  });

  it('ends the whole sandbox on timeout', async () => {
    const project = tempDir('sandbox-timeout-');
    writeFileSync(join(project, 'hang.cjs'), "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000);");
    const outcome = await runProjectCommand(process.execPath, ['hang.cjs'], {
      projectDir: project,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 500,
      outputCapBytes: 1024,
      sandbox: 'bubblewrap',
    });
    expect(outcome.timedOut).toBe(true);
    expect(outcome.durationMs).toBeLessThan(5000);
  });
});
