import { statSync } from 'node:fs';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config/types.js';
import { displayPath } from '../../common/display-path.js';
import { pointer, type ErrorDetail } from '../../domain/errors.js';
import { configuredPathProblem } from '../../workspace/configured-folder.js';
import type { StateHandler } from '../../runtime/handler-types.js';
import type { DeploymentRecord } from '../../domain/orchestrator-state.js';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../workspace/boundary.js';
import { writeJsonAtomic } from '../../workspace/file-writes.js';
import { failure } from '../shared/handler-outcome.js';
import { copyTemplate } from './template-copy.js';

const NAME = /^[a-z0-9-]{1,64}$/;

/** Directory-name-safe stamp that sorts in time order: 2024-05-01T10-00-00-000Z. */
function stamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function metadataOf(payload: Record<string, unknown>): NonNullable<DeploymentRecord['metadata']> {
  const metadata: NonNullable<DeploymentRecord['metadata']> = {};
  if (typeof payload.version === 'string') metadata.version = payload.version;
  if (Array.isArray(payload.tags)) metadata.tags = payload.tags.filter((t): t is string => typeof t === 'string');
  if (payload.config !== undefined) metadata.config = payload.config;
  return metadata;
}

/**
 * agent-deploy (approval-gated): copies a template directory (default `<agentsDir>/<agentName>`,
 * or a workspace-relative templatePath) into a new `<deployBaseDir>/<deployName|agentName>-<stamp>`
 * directory, writes DEPLOYMENT.json there and records the deployment in state. It never
 * overwrites: an existing target fails the run. Symbolic links and hard-linked files of the
 * template are not copied (template-copy.ts), so a deployment cannot end up pointing at, or
 * holding, files from outside it.
 */
export type AgentDeployContext = Pick<AppConfig, 'workspaceRoot' | 'agentsDir' | 'deployBaseDir'>;

type TemplateLookup = { ok: true; dir: string; name: string } | { ok: false; problem: ErrorDetail };

/**
 * The template folder a deployment copies: `<agentsDir>/<agentName>`, or the workspace-relative
 * templatePath. `name` is how results name it (its workspace path, or `agents/<name>` for a
 * built-in one); a folder that is not there is a problem naming the payload field.
 */
function findTemplate(config: Pick<AgentDeployContext, 'workspaceRoot' | 'agentsDir'>, payload: Record<string, unknown>): TemplateLookup {
  const agentName = String(payload.agentName);
  if (payload.templatePath !== undefined) {
    const name = String(payload.templatePath);
    const field = pointer('body', 'payload', 'templatePath');
    let dir: string;
    try {
      dir = resolveWorkspacePath(config.workspaceRoot, name);
    } catch (err) {
      if (err instanceof WorkspaceBoundaryError) return { ok: false, problem: { path: field, message: `templatePath refused: ${err.message}` } };
      throw err;
    }
    if (isDirectory(dir)) return { ok: true, dir, name };
    return { ok: false, problem: { path: field, message: `unknown agent template '${agentName}': no template directory at ${name}` } };
  }
  const dir = join(config.agentsDir, agentName);
  const name = `agents/${agentName}`;
  if (isDirectory(dir)) return { ok: true, dir, name };
  return { ok: false, problem: { path: pointer('body', 'payload', 'agentName'), message: `unknown agent template '${agentName}': no template directory at ${name}` } };
}

/** agent-deploy's admission check (lane hook): the template folder the payload names is there. */
export const agentDeployAdmissionCheck = (config: Pick<AgentDeployContext, 'workspaceRoot' | 'agentsDir'>) => (payload: Record<string, unknown>) => {
  const template = findTemplate(config, payload);
  return template.ok ? [] : [template.problem];
};

export const agentDeploy: StateHandler<AgentDeployContext> = async (_state, config, input) => {
  const { payload } = input;
  const agentName = payload.agentName;
  if (typeof agentName !== 'string' || !NAME.test(agentName)) {
    return failure('agent-deploy needs payload.agentName: a template name of lower-case letters, digits and dashes');
  }
  const deployName = payload.deployName ?? agentName;
  if (typeof deployName !== 'string' || !NAME.test(deployName)) {
    return failure('payload.deployName must be lower-case letters, digits and dashes');
  }

  const template = findTemplate(config, payload);
  if (!template.ok) return failure(template.problem.message);
  const templateName = template.name;
  // Copy from the real directory, so a linked template root is not mistaken for a link to skip.
  const templateDir = await realpath(template.dir);

  const now = input.clock.now();
  const deployDirName = `${deployName}-${stamp(now)}`;
  const deployPath = join(config.deployBaseDir, deployDirName);
  // Results name the deployment inside the workspace, or inside the deployments folder when that lies elsewhere.
  const shownPath = displayPath(deployPath, { workspaceRoot: config.workspaceRoot });
  const shownDeployPath = shownPath.startsWith('outside:') ? `deployments/${deployDirName}` : shownPath;
  // Checked at every deployment: a deployments folder swapped for a link would put the copy outside.
  const refused = configuredPathProblem(config.deployBaseDir, 'deployments folder', config);
  if (refused) return failure(`refused: ${refused}`);
  await mkdir(config.deployBaseDir, { recursive: true });
  try {
    await mkdir(deployPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return failure(`deployment target ${shownDeployPath} already exists; refusing to overwrite it`);
    }
    throw err;
  }

  try {
    const copy = copyTemplate(templateDir, deployPath);
    if (!copy.ok) {
      await rm(deployPath, { recursive: true, force: true });
      return failure(`deployment ${shownDeployPath} not made: ${copy.error}`);
    }
    const metadata = metadataOf(payload);
    const deployedAt = now.toISOString();
    // Replaces a DEPLOYMENT.json the template brought, never writing through a link.
    await writeJsonAtomic(join(deployPath, 'DEPLOYMENT.json'), {
      agentName,
      deployName,
      deployPath: shownDeployPath,
      deployedAt,
      runId: input.runId,
      taskId: input.taskId,
      templatePath: templateName,
      metadata,
    });

    const record: DeploymentRecord = { timestamp: deployedAt, agentName, deployPath: shownDeployPath, metadata };
    return {
      status: 'completed',
      result: {
        agentName,
        deployPath: shownDeployPath,
        deploymentMetadata: {
          ...metadata,
          deployedAt,
          runId: input.runId,
          templatePath: templateName,
          filesCopied: copy.filesCopied,
          ...(copy.skippedSymlinks.length > 0 ? { skippedSymlinks: copy.skippedSymlinks } : {}),
          ...(copy.skipped.length > 0 ? { skipped: copy.skipped } : {}),
        },
      },
      stateUpdate: (state) => ({ ...state, deployedAgents: [...state.deployedAgents, record] }),
    };
  } catch (err) {
    // A half-copied deployment is worse than none: remove it so the directory list stays truthful.
    await rm(deployPath, { recursive: true, force: true });
    throw err;
  }
};
