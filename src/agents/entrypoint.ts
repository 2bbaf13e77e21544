import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface ResolvedEntrypoint {
  path: string | null;
  /** Why `path` is null, in words an operator can act on. */
  missingReason: string | null;
}

/**
 * Finds the file to run for an agent's declared entrypoint. A file next to the manifest wins
 * (plain JavaScript agents need no build); otherwise the compiled TypeScript agent under
 * `<compiledAgentsDir>/<id>/` is used, which exists only after `npm run build`.
 */
export function resolveEntrypoint(
  agentDir: string,
  agentId: string,
  entrypoint: string | null,
  compiledAgentsDir: string,
): ResolvedEntrypoint {
  if (entrypoint === null) {
    return { path: null, missingReason: 'no worker entrypoint declared in agent.config.json' };
  }
  const beside = join(agentDir, entrypoint);
  if (existsSync(beside)) return { path: beside, missingReason: null };
  const compiled = join(compiledAgentsDir, agentId, entrypoint);
  if (existsSync(compiled)) return { path: compiled, missingReason: null };
  return { path: null, missingReason: `build output missing: run npm run build (expected ${compiled})` };
}
