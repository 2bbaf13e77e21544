import { resolveScope } from '../../src/worker-sdk/scope-path.js';
import { readWorkspaceText } from '../../src/worker-sdk/workspace-file.js';

/** The target project as the plan needs it. */
export interface TargetProject {
  /** Absolute folder of the project: where its script runs, never put into a result. */
  dir: string;
  /** The same folder, workspace-relative: how results name it. */
  relative: string;
  /** The project's name from package.json, when it has one. */
  name: string | null;
  scripts: Record<string, string>;
}

/** A package.json larger than this is not a project manifest. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Resolves `target` inside the workspace and reads its package.json scripts through the workspace
 * opener. Answers the problem in words when the target escapes the workspace, is or passes
 * through a symbolic link, is not a folder, or has no package.json the lane may read: a
 * package.json that is a symbolic link or a hard link is refused unread, so no script it defines
 * is ever planned or run.
 */
export async function readTargetProject(workspaceRoot: string, target: string): Promise<TargetProject | { problem: string }> {
  const resolved = resolveScope(workspaceRoot, target, 'target');
  if ('problem' in resolved) return resolved;
  const dir = resolved.absolute;
  if (!resolved.stats.isDirectory()) return { problem: `target ${JSON.stringify(target)} is not a folder; name the project folder that holds package.json` };

  const manifestPath = resolved.relative === '.' ? 'package.json' : `${resolved.relative}/package.json`;
  const read = readWorkspaceText(workspaceRoot, manifestPath, { maxBytes: MAX_MANIFEST_BYTES });
  if (!read.ok) {
    if (read.problem === 'missing') return { problem: `target ${JSON.stringify(target)} has no package.json` };
    if (read.problem === 'too-large') return { problem: `${target}/package.json is larger than ${MAX_MANIFEST_BYTES} bytes` };
    return { problem: `target ${JSON.stringify(target)}: ${read.message}; it was not read and no script of it is run` };
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(read.text);
  } catch (err) {
    return { problem: `${target}/package.json is not valid JSON (${(err as Error).message})` };
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    return { problem: `${target}/package.json does not hold a JSON object` };
  }
  const { name, scripts } = manifest as { name?: unknown; scripts?: unknown };
  const scriptTable: Record<string, string> = {};
  if (typeof scripts === 'object' && scripts !== null && !Array.isArray(scripts)) {
    for (const [key, value] of Object.entries(scripts)) if (typeof value === 'string') scriptTable[key] = value;
  }
  return { dir, relative: resolved.relative, name: typeof name === 'string' ? name : null, scripts: scriptTable };
}
