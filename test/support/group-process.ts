import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface GroupProcess {
  /** Every stdout/stderr line so far. */
  output: string[];
  /** SIGKILL to the whole process group; resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts a program in its own process group (so `kill` takes it and anything it started) and
 * resolves once `readyUrl` answers 2xx, or a line of its output contains `readyLine`.
 */
export async function startGroupProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; readyUrl?: string; readyLine?: string; timeoutMs?: number },
): Promise<GroupProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? { PATH: process.env.PATH ?? '' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => output.push(line));
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    }
    await exited;
  };
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const ready = options.readyUrl
      ? await fetch(options.readyUrl).then((r) => r.ok, () => false)
      : output.some((line) => line.includes(options.readyLine ?? ''));
    if (ready) return { output, kill };
    if (Date.now() > deadline || child.exitCode !== null) {
      await kill();
      throw new Error(`${command} did not become ready:\n${output.slice(-20).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
