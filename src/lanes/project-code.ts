import type { AppConfig } from '../config/types.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { SANDBOX_PAYLOAD_KEY } from '../worker-sdk/project-command.js';
import { buildRefactorType } from './build-refactor/definition.js';
import { qaVerificationType } from './qa-verification/definition.js';

/** The lanes that run a project's own code (its test scripts, its build). */
export const PROJECT_CODE_LANES = [qaVerificationType.type, buildRefactorType.type] as const;

/**
 * The lanes that run a project's own code on the service side: the operator's sandbox policy
 * rides with the payload, since the worker cannot read the configuration. The worker runs the
 * code in bubblewrap where it can and, without it, only when the policy opts in
 * (src/worker-sdk/project-command.ts, docs/workers.md "Project code").
 */
export function projectCodeLanes(policy: AppConfig['sandbox']): LaneDefinition[] {
  const sandbox = Object.freeze({ allowUnsandboxed: policy.allowUnsandboxed });
  return PROJECT_CODE_LANES.map((type) => ({ type, workerInput: () => ({ [SANDBOX_PAYLOAD_KEY]: sandbox }) }));
}
