import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

export interface ScriptRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why the process could not be started at all, or null when it ran. */
  spawnError: string | null;
  durationMs: number;
  /** The end of stdout and stderr together, colour codes removed. */
  output: string;
}

export interface ScriptOptions {
  cwd: string;
  script: string;
  timeoutMs: number;
  /** Called once the process runs, with a function that ends its whole process group. */
  onStart?: (killGroup: () => void) => void;
}

/** Keeps the end of the output, which is where runners print their summary and failures. */
const OUTPUT_KEEP_CHARS = 64 * 1024;
const KILL_GRACE_MS = 2_000;
/** Terminal colour and cursor sequences (ESC [ … final byte); built from the ESC code to keep the pattern readable. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[ -/]*[@-~]`, 'g');

/**
 * The script's environment: enough for npm and node to work, nothing of the worker's own (no
 * keys, no NODE_OPTIONS), and CI mode so test runners neither watch nor prompt.
 */
export function scriptEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: parent.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: parent.HOME ?? tmpdir(),
    CI: 'true',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  for (const name of ['LANG', 'LC_ALL', 'TZ', 'TMPDIR'] as const) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * Runs `npm run <script>` without a shell, in its own process group so that a timeout ends the
 * script and everything it started (npm → sh → test runner → workers), not npm alone.
 */
export function runNpmScript(options: ScriptOptions): Promise<ScriptRun> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    let output = '';
    let timedOut = false;
    let settled = false;
    const child = spawn('npm', ['run', options.script], {
      cwd: options.cwd,
      env: scriptEnv(),
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEEP_CHARS);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    const killGroup = () => {
      if (child.pid === undefined) return;
      const pid = child.pid;
      signalGroup(pid, 'SIGTERM');
      setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);

    const finish = (run: Omit<ScriptRun, 'durationMs' | 'output' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Anything the script left running in its group (a dev server, a watcher) goes with it.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      resolvePromise({ ...run, timedOut, durationMs: Date.now() - started, output: output.replace(ANSI, '') });
    };
    child.once('error', (err) => finish({ exitCode: null, signal: null, spawnError: err.message }));
    child.once('close', (code, signal) => finish({ exitCode: code, signal, spawnError: null }));
    if (child.pid !== undefined) options.onStart?.(killGroup);
  });
}
