/**
 * The environment a suite runs in: only what npm and a runner need to start, plus the markers
 * that make runners behave as in CI (no watch mode, no interactive prompts). Nothing else of the
 * worker's environment reaches the project's scripts; in the sandbox HOME and TMPDIR are the
 * sandbox's own (src/worker-sdk/project-command.ts).
 */
export function suiteEnv(parent: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = { NODE_ENV: 'test', CI: 'true' };
  if (parent.PATH) env.PATH = parent.PATH;
  if (parent.HOME) env.HOME = parent.HOME;
  return env;
}
