import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { installTaskTypes } from '../../src/task-types/installed.js';
import { createTaskTypeRegistry } from '../../src/task-types/registry.js';
import { startComposedService, type ComposedService } from './composed-service.js';
import { tempDir } from './config.js';
import { apiClient, waitForTerminal } from './http.js';

/** One file of an operator type's folder; `executable` sets mode 0755. */
export interface TypeFile {
  text: string;
  executable?: boolean;
}

/** Writes `<root>/<folder>/task-type.json` and the program's files; returns the folder. */
export function writeOperatorType(root: string, folder: string, manifest: Record<string, unknown>, files: Record<string, TypeFile> = {}): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'task-type.json'), JSON.stringify(manifest, null, 2));
  for (const [name, file] of Object.entries(files)) {
    writeFileSync(join(dir, name), file.text);
    if (file.executable) chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/** A manifest of a shell program `run.sh` with an open payload schema; `fields` add or override keys. */
export function shellManifest(type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type,
    label: `Test ${type}`,
    purpose: `A test program (${type}).`,
    command: ['sh', 'run.sh'],
    payloadSchema: { type: 'object', properties: {} },
    ...fields,
  };
}

export interface OperatorService extends ComposedService {
  api: ReturnType<typeof apiClient>;
  /** The workspace root; the service reads its task types from `<workspace>/task-types` (the default). */
  workspace: string;
  /** The task types folder the service reads. */
  typesDir: string;
  /** Triggers `type` and waits for its run to end; answers the run record. */
  runToEnd(type: string, payload?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, any>>;
}

/**
 * The service composed in this process with the runner on, over a fresh workspace whose
 * `task-types` folder (the default taskTypesDir) `prepare` fills before the start, allowed to
 * run programs unsandboxed when this host has no bubblewrap. Closing it puts the built-in
 * catalog back for later tests.
 */
export async function startOperatorService(
  prepare: (typesDir: string, workspace: string) => void,
  config: Record<string, unknown> = {},
  env: Record<string, string> = {},
  options: { runMetrics?: boolean } = {},
): Promise<OperatorService> {
  const workspace = join(tempDir('orch-optypes-'), 'workspace');
  const typesDir = join(workspace, 'task-types');
  mkdirSync(typesDir, { recursive: true });
  prepare(typesDir, workspace);
  const svc = await startComposedService({ runtime: true, config: { workspaceRoot: workspace, sandbox: { allowUnsandboxed: true }, ...config }, env, ...options });
  const api = apiClient(svc.url);
  return {
    ...svc,
    api,
    workspace,
    typesDir,
    async runToEnd(type, payload = {}, timeoutMs = 20_000) {
      const res = await api.trigger(type, payload);
      if (res.status !== 202) throw new Error(`trigger of ${type} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return waitForTerminal(api, res.body.runId as string, timeoutMs);
    },
    async close() {
      await svc.close();
      installTaskTypes(createTaskTypeRegistry(BUILT_IN_REGISTRY.all()));
    },
  };
}
