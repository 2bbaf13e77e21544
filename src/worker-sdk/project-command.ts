import { defaultForwarders, type OutputForwarder } from './forward-output.js';
import { spawn, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { forgetChildGroup, recordChildGroup } from '../common/child-groups.js';

/**
 * How code that comes from a project (its test scripts, its build) is run: `bubblewrap` puts it
 * in namespaces of its own (process ids, network, IPC, hostname), with the system read-only, the
 * project the only writable folder and nothing else of the host visible (no service state, no
 * config, no other project, no `/proc` of the service); `none` runs it as a plain child process,
 * which only an operator's explicit opt-in allows (docs/workers.md, "Project code").
 */
export type SandboxKind = 'bubblewrap' | 'none';

/** The operator's policy for project code, handed to the lanes that run it (`__sandbox` payload key). */
export interface SandboxPolicy {
  /** Run project code without a sandbox when none can be had (default false: refuse instead). */
  allowUnsandboxed: boolean;
}

export const SANDBOX_PAYLOAD_KEY = '__sandbox';

/** The sandbox a run gets under `policy`, or why it cannot run project code at all. */
export type SandboxDecision = { kind: SandboxKind; note: string } | { refused: string };

/** Folders of the host visible read-only inside the sandbox: what a shell, node and npm need. */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc'];

let probed: boolean | null = null;

/**
 * Whether bubblewrap is installed and can make its namespaces here (it cannot in some
 * containers), probed once per process with the flags a real run uses.
 */
export function bubblewrapAvailable(): boolean {
  if (probed === null) {
    const probe = spawnSync('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'], {
      stdio: 'ignore',
      timeout: 5000,
    });
    probed = probe.status === 0;
  }
  return probed;
}

/**
 * The policy as a worker finds it in its payload (`__sandbox`, set by src/lanes/project-code.ts).
 * Anything but `allowUnsandboxed: true` is the default: no opt-in. A lane run outside the
 * service has no such key and gets the default too.
 */
export function sandboxPolicyOf(value: unknown): SandboxPolicy {
  const allow = typeof value === 'object' && value !== null && (value as { allowUnsandboxed?: unknown }).allowUnsandboxed === true;
  return { allowUnsandboxed: allow };
}

/** How a lane decides its sandbox; lanes take one in their deps so a test can pin what the host offers. */
export type SandboxDecider = (policy: SandboxPolicy | undefined) => SandboxDecision;

/** What an operator does about a refusal; the lanes that run project code name it as their next action. */
export const SANDBOX_REFUSAL_ACTION =
  'Install bubblewrap on the service host (apt-get install bubblewrap), or set sandbox.allowUnsandboxed to true in the configuration to run project code without a sandbox.';

/** Decides how project code runs, from what this host can do and the operator's policy. */
export function decideSandbox(policy: SandboxPolicy | undefined, available: boolean = bubblewrapAvailable()): SandboxDecision {
  if (available) return { kind: 'bubblewrap', note: 'ran in a bubblewrap sandbox: own process, network and IPC namespaces, only the project writable' };
  if (policy?.allowUnsandboxed) {
    return { kind: 'none', note: 'ran UNSANDBOXED: bubblewrap is not available on this host and sandbox.allowUnsandboxed is true' };
  }
  return {
    refused:
      'project code is not run: no sandbox is available on this host (install bubblewrap), and sandbox.allowUnsandboxed is not set',
  };
}

/**
 * The folder project code runs in and may write to: `dir` with its links resolved, which must
 * still lie inside the workspace (also resolved). The sandbox binds this path, so what the
 * command prints names the files the lane reads and writes.
 */
export function projectFolder(workspaceRoot: string, dir: string): { dir: string } | { problem: string } {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(dir);
    realRoot = realpathSync(workspaceRoot);
  } catch (err) {
    return { problem: `the project folder cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const rel = relative(realRoot, real);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { problem: 'the project folder leads outside the workspace through a symbolic link' };
  return { dir: real };
}

/** The node installation's prefix, when it lies outside the system folders (nvm, a tarball in /opt). */
function nodePrefix(): string | null {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  return SYSTEM_FOLDERS.some((folder) => prefix === folder || prefix.startsWith(`${folder}/`)) ? null : prefix;
}

export interface ProjectCommandOptions {
  /** Absolute, resolved project folder: the working directory and the one writable folder. */
  projectDir: string;
  /** The whole environment of the command (the caller's minimal one); HOME and TMPDIR are set inside. */
  env: Record<string, string>;
  timeoutMs: number;
  /** The tail of stdout and stderr kept (runners print their summary last). */
  outputCapBytes: number;
  sandbox: SandboxKind;
  /** Let the command reach the network (default false: its own empty network namespace). */
  network?: boolean;
  /** Bind the project folder read-only (an operator's program folder); `writableDirs` then hold what it may write. */
  projectReadOnly?: boolean;
  /** Absolute folders writable inside the sandbox besides the project folder (a per-attempt scratch folder). */
  writableDirs?: readonly string[];
  /** Absolute folders or files visible read-only inside the sandbox (the workspace scopes a payload names). */
  readOnlyPaths?: readonly string[];
  /** Called once the process runs, with a function that ends it and everything it started. */
  onStart?: (stop: () => void) => void;
  /**
   * Where its output goes as it prints, besides the kept tail: by default, in a worker process,
   * each line goes to the worker's standard error marked with its stream, so the run's log shows
   * it live (`stdout`/`stderr`); `false` keeps it to the tail.
   */
  liveOutput?: false | { stdout: OutputForwarder; stderr: OutputForwarder };
}

export interface ProjectCommandOutcome {
  /** The exit code, or null when a signal ended the process or it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Why the command could not start (ENOENT, EACCES…), or null. */
  spawnError: string | null;
  output: string;
  outputTruncated: boolean;
  durationMs: number;
  sandbox: SandboxKind;
}

/** The bubblewrap command line that runs `command args` in the sandbox described above. */
export function bubblewrapArgs(
  command: string,
  args: readonly string[],
  options: Pick<ProjectCommandOptions, 'projectDir' | 'network' | 'projectReadOnly' | 'writableDirs' | 'readOnlyPaths'>,
): string[] {
  const binds = SYSTEM_FOLDERS.flatMap((folder) => ['--ro-bind-try', folder, folder]);
  const prefix = nodePrefix();
  if (prefix) binds.push('--ro-bind', prefix, prefix);
  return [
    '--unshare-all',
    ...(options.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    ...binds,
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
    '--dir', '/tmp/home',
    '--setenv', 'HOME', '/tmp/home',
    '--setenv', 'TMPDIR', '/tmp',
    // Scopes first: a folder bound later (the project, a scratch folder) is not hidden under one.
    ...(options.readOnlyPaths ?? []).flatMap((path) => ['--ro-bind', path, path]),
    options.projectReadOnly ? '--ro-bind' : '--bind', options.projectDir, options.projectDir,
    ...(options.writableDirs ?? []).flatMap((dir) => ['--bind', dir, dir]),
    '--chdir', options.projectDir,
    '--',
    command,
    ...args,
  ];
}

/** Keeps the last `cap` bytes of what arrives, in order. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const excess = this.size - this.cap;
      const first = this.chunks[0]!;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** After SIGTERM the group gets this long to exit before SIGKILL. */
const KILL_GRACE_MS = 2000;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group, which is what was wanted.
  }
}

/**
 * Runs one command of a project without a shell, in its own process group, in the sandbox the
 * caller decided on. A timeout or `stop` ends the group (and, sandboxed, the whole process
 * namespace with it); whatever the command left running is ended when it exits. Never rejects.
 */
export function runProjectCommand(command: string, args: readonly string[], options: ProjectCommandOptions): Promise<ProjectCommandOutcome> {
  const started = Date.now();
  const output = new OutputTail(options.outputCapBytes);
  const [file, argv] = options.sandbox === 'bubblewrap' ? ['bwrap', bubblewrapArgs(command, args, options)] : [command, [...args]];
  return new Promise((resolve) => {
    let timedOut = false;
    let spawnError: string | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(file, argv, {
      cwd: options.projectDir,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Its own group is outside the worker's: recorded, so the orchestrator can end it with the worker's.
    if (child.pid !== undefined) recordChildGroup(child.pid);
    const live = options.liveOutput === false ? null : (options.liveOutput ?? defaultForwarders());
    child.stdout.on('data', (chunk: Buffer) => {
      output.append(chunk);
      live?.stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output.append(chunk);
      live?.stderr.push(chunk);
    });
    const stop = () => {
      if (child.pid === undefined) return;
      const pid = child.pid;
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    child.on('error', (err) => {
      spawnError = err.message;
    });
    // What the command left running in its group goes as soon as it exits: a leftover holding
    // stdout open would otherwise keep 'close' from coming until the timeout.
    child.on('exit', () => {
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    });
    child.on('close', (exitCode, signal) => {
      live?.stdout.end();
      live?.stderr.end();
      clearTimeout(timeout);
      clearTimeout(killTimer);
      // What the command left running in its group (a watcher, a server) goes with it.
      if (child.pid !== undefined) {
        signalGroup(child.pid, 'SIGKILL');
        forgetChildGroup(child.pid);
      }
      resolve({
        exitCode: spawnError === null ? exitCode : null,
        signal,
        timedOut,
        spawnError,
        output: output.text(),
        outputTruncated: output.truncated,
        durationMs: Date.now() - started,
        sandbox: options.sandbox,
      });
    });
    if (child.pid !== undefined) options.onStart?.(stop);
  });
}
