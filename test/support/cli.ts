import { runOrch } from '../../src/orch.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `orch` command line in this process with captured output and a given environment. */
export async function orch(argv: string[], env: NodeJS.ProcessEnv = {}, options: { stdin?: string; signal?: AbortSignal } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runOrch({
    argv,
    env: { HOME: '/nonexistent-home-for-orch-tests', ...env },
    stdout: { write: (t: string) => (stdout += t), isTTY: false },
    stderr: { write: (t: string) => (stderr += t), isTTY: false },
    readStdin: async () => options.stdin ?? '',
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}
