import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { TEST_WEBHOOK_SECRET, testKeyRotation } from './keys.js';
import { GUARD_REPORT_PREFIX } from './loopback-guard.mjs';
import { REPO_ROOT } from './paths.js';

export const SERVICE_ENTRY = join(REPO_ROOT, 'dist', 'src', 'main.js');

/** Preloaded into the service: the loopback guard the tests themselves run with. */
const LOOPBACK_GUARD = `--import=${pathToFileURL(join(REPO_ROOT, 'test', 'support', 'loopback-guard-preload.mjs')).href}`;

export interface ServiceProcess {
  url: string;
  metricsUrl: string | null;
  child: ChildProcess;
  /** Every stdout/stderr line seen so far (JSON log lines and anything else). */
  output: string[];
  /**
   * SIGKILL to the whole process group (the service and any workers it spawned). Throws, once
   * the service is gone, when its loopback guard refused traffic past loopback meanwhile.
   */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Directory for the config file; state/workspace/logs paths in `config` resolve against it. */
  baseDir: string;
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Extra CLI args after `start`. */
  args?: string[];
  timeoutMs?: number;
}

/**
 * Starts the built service (`node dist/src/main.js start`) in its own process group on an
 * ephemeral port and resolves once it logs `service listening`. Callers must `kill()` it. The
 * service runs with the loopback guard preloaded (NODE_OPTIONS; `env` may add options of its
 * own); the workers it spawns do not, since the service hands them a minimal environment.
 */
export async function startService(options: StartOptions): Promise<ServiceProcess> {
  const configPath = join(options.baseDir, 'orchestrator.config.json');
  writeFileSync(configPath, JSON.stringify({ port: 0, metricsPort: 0, docWatcher: false, ...(options.config ?? {}) }, null, 2));
  const child = spawn(process.execPath, [SERVICE_ENTRY, 'start', ...(options.args ?? [])], {
    cwd: options.baseDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ORCHESTRATOR_CONFIG: configPath,
      API_KEY_ROTATION: testKeyRotation(),
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      LOG_LEVEL: 'info',
      ...(options.env ?? {}),
      NODE_OPTIONS: [LOOPBACK_GUARD, options.env?.NODE_OPTIONS].filter((option) => option !== undefined).join(' '),
    },
  });
  const output: string[] = [];
  let exitCode: number | null = null;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));

  const listening = new Promise<{ url: string; metricsUrl: string | null }>((resolve, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      if (!line.includes('service listening')) return;
      try {
        const entry = JSON.parse(line) as { url: string; metricsUrl?: string | null };
        resolve({ url: entry.url, metricsUrl: entry.metricsUrl ?? null });
      } catch {
        // a non-JSON line mentioning the phrase is not the readiness line
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', (l) => output.push(l));
    void exited.then((code) => reject(new Error(`service exited with ${code} before listening:\n${output.join('\n')}`)));
    setTimeout(
      () => reject(new Error(`service did not listen in time:\n${output.join('\n')}`)),
      options.timeoutMs ?? 20_000,
    ).unref();
  });

  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // group already gone
      }
    }
    return exited;
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const code = await stop(signal);
    const refused = output.filter((line) => line.startsWith(GUARD_REPORT_PREFIX));
    if (refused.length > 0) throw new Error(`the service tried to send traffic past loopback:\n${refused.join('\n')}`);
    return code;
  };

  try {
    const { url, metricsUrl } = await listening;
    return { url, metricsUrl, child, output, kill };
  } catch (err) {
    await stop();
    throw err;
  }
}
