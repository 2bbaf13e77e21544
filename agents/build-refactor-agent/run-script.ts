import { tmpdir } from 'node:os';
import { runProjectCommand, type SandboxKind } from '../../src/worker-sdk/project-command.js';

export interface ScriptRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why the process could not be started at all, or null when it ran. */
  spawnError: string | null;
  durationMs: number;
  /** The end of stdout and stderr together, colour codes removed. */
  output: string;
  sandbox: SandboxKind;
}

export interface ScriptOptions {
  /** The project folder, resolved through its links (projectFolder): where the script runs and may write. */
  projectDir: string;
  script: string;
  timeoutMs: number;
  sandbox: SandboxKind;
  /** Called once the process runs, with a function that ends it and everything it started. */
  onStart?: (killGroup: () => void) => void;
}

/** Keeps the end of the output, which is where runners print their summary and failures. */
const OUTPUT_KEEP_BYTES = 64 * 1024;
/** Terminal colour and cursor sequences (ESC [ … final byte); built from the ESC code to keep the pattern readable. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[ -/]*[@-~]`, 'g');

/**
 * The script's environment: enough for npm and node to work, nothing of the worker's own (no
 * keys, no NODE_OPTIONS), and CI mode so test runners neither watch nor prompt. In the sandbox
 * HOME and TMPDIR are the sandbox's own.
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

/**
 * Runs `npm run <script>` of the project through the one runner of project code
 * (src/worker-sdk/project-command.ts): without a shell, in its own process group so that a
 * timeout ends the script and everything it started, in the sandbox the lane decided on.
 */
export async function runNpmScript(options: ScriptOptions): Promise<ScriptRun> {
  const run = await runProjectCommand('npm', ['run', options.script], {
    projectDir: options.projectDir,
    env: scriptEnv(),
    timeoutMs: options.timeoutMs,
    outputCapBytes: OUTPUT_KEEP_BYTES,
    sandbox: options.sandbox,
    ...(options.onStart ? { onStart: options.onStart } : {}),
  });
  return {
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    spawnError: run.spawnError,
    durationMs: run.durationMs,
    output: run.output.replace(ANSI, ''),
    sandbox: run.sandbox,
  };
}
