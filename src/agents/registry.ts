import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configError } from '../config/errors.js';
import { packageRoot } from '../config/package-root.js';
import { resolveEntrypoint } from './entrypoint.js';
import { parseAgentManifest, type AgentManifest } from './manifest.js';

/** One agent as the rest of the service sees it: its manifest plus resolved file locations. */
export interface RegisteredAgent extends AgentManifest {
  directory: string;
  manifestPath: string;
  /** `SOUL.md` beside the manifest, or null when the agent has none. */
  soulPath: string | null;
  /** The file a worker spawn runs, or null when the agent cannot be spawned yet. */
  entrypointPath: string | null;
  entrypointMissingReason: string | null;
}

export interface AgentRegistry {
  /** Every agent, ordered by id. */
  list(): RegisteredAgent[];
  get(id: string): RegisteredAgent | undefined;
  /** The one agent that serves a task type, if any. */
  forLane(taskType: string): RegisteredAgent | undefined;
}

export interface LoadAgentRegistryOptions {
  /** Where compiled TypeScript agents live; defaults to `<package root>/dist/agents`. */
  compiledAgentsDir?: string;
}

function readManifest(manifestPath: string, directoryName: string): AgentManifest {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (err) {
    throw configError(`invalid agent manifest ${manifestPath}: ${(err as Error).message}`);
  }
  return parseAgentManifest(data, manifestPath, directoryName);
}

/**
 * Reads every `<agentsDir>/<id>/agent.config.json`. Directories without a manifest are not
 * agents (room for shared helper code) and are skipped; a manifest that is present but wrong
 * stops the load with an error naming the file, because a half-read catalog would misreport
 * readiness. Two agents claiming the same lane is also an error: the spawner must never guess.
 */
export function loadAgentRegistry(agentsDir: string, options: LoadAgentRegistryOptions = {}): AgentRegistry {
  if (!existsSync(agentsDir)) throw configError(`agents directory not found: ${agentsDir}`);
  const compiledAgentsDir = options.compiledAgentsDir ?? join(packageRoot(), 'dist', 'agents');

  const agents = new Map<string, RegisteredAgent>();
  const laneOwners = new Map<string, RegisteredAgent>();
  const directories = readdirSync(agentsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  for (const name of directories) {
    const directory = join(agentsDir, name);
    const manifestPath = join(directory, 'agent.config.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = readManifest(manifestPath, name);
    const entry = resolveEntrypoint(directory, manifest.id, manifest.entrypoint, compiledAgentsDir);
    const soulPath = join(directory, 'SOUL.md');
    const agent: RegisteredAgent = {
      ...manifest,
      directory,
      manifestPath,
      soulPath: existsSync(soulPath) ? soulPath : null,
      entrypointPath: entry.path,
      entrypointMissingReason: entry.missingReason,
    };
    for (const lane of manifest.lanes) {
      const owner = laneOwners.get(lane);
      if (owner) {
        throw configError(`lane "${lane}" is claimed by both ${owner.manifestPath} and ${manifestPath}`);
      }
      laneOwners.set(lane, agent);
    }
    agents.set(manifest.id, agent);
  }

  const ordered = [...agents.values()];
  return {
    list: () => [...ordered],
    get: (id) => agents.get(id),
    forLane: (taskType) => laneOwners.get(taskType),
  };
}
